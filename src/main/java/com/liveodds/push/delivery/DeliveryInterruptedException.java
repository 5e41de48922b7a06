package com.liveodds.push.delivery;

/**
 * A push ended neither delivered nor dead-lettered (shutdown, withdrawn by its source, an earlier message of its
 * match handed back): its exchange fails so that the source keeps the message and delivers it again.
 */
public class DeliveryInterruptedException extends RuntimeException {

    public DeliveryInterruptedException(String why) {
        super(why);
    }
}
