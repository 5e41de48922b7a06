package com.liveodds.push.heartbeat;

import java.util.List;

/** What is known of the live matches, for the status endpoint; implemented by LiveMatches (fed by delivery). */
public interface MatchStatuses {

    List<MatchStatus> matches();
}
