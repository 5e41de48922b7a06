package com.liveodds.push.delivery;

/** The service stopped while a push was waiting to be retried: the source must not acknowledge it. */
public class DeliveryInterruptedException extends RuntimeException {

    public DeliveryInterruptedException(Push push) {
        super("shutdown interrupted the retries of " + push + "; it stays unacknowledged at the source");
    }
}
