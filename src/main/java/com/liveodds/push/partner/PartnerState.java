package com.liveodds.push.partner;

/** The partner connection's state, for the status endpoint; implemented by the partner connection. */
public interface PartnerState {

    PartnerStatus partner();
}
