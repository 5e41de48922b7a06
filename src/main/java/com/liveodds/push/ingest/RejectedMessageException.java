package com.liveodds.push.ingest;

/** An upstream message that breaks the envelope rules; the message says which rule, in words for an operator. */
public class RejectedMessageException extends RuntimeException {

    public RejectedMessageException(String reason) {
        super(reason);
    }
}
