package com.liveodds.push.heartbeat;

import java.util.List;

/** What delivery knows of the live matches, for the status endpoint; implemented by the delivery core. */
public interface MatchStatuses {

    List<MatchStatus> matches();
}
