package com.liveodds.push.ingest;


/** None of the three priorities gave a match id. */
public class UnresolvableMatchException extends RejectedMessageException {

    public UnresolvableMatchException(String reason) {
        super(Reason.UNRESOLVABLE_MATCH, "unresolvable match: " + reason);
    }
}
