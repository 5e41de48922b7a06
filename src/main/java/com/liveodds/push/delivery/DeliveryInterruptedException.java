package com.liveodds.push.delivery;

/** A push ended neither delivered nor dead-lettered (shutdown, or its source withdrew it): the source must not acknowledge it. */
public class DeliveryInterruptedException extends RuntimeException {

    public DeliveryInterruptedException(Push push, String why) {
        super(why + ": " + push + " stays unacknowledged at the source");
    }
}
