package com.liveodds.push.queue;

import java.time.Duration;

/**
 * Thrown by a step of a route that consumes a {@code liveoddsQueue} endpoint: the exchange is to run the route again,
 * at the head of its key, once {@code delay} has passed. The queue owns the wait: no thread is held, the later
 * exchanges of the key wait behind it, and a withdrawal, a superseding exchange or a shutdown ends the wait at once.
 */
public class RetryLater extends RuntimeException {

    private final transient Duration delay;

    public RetryLater(Duration delay, String why) {
        super(why, null, false, false);
        this.delay = delay.isNegative() ? Duration.ZERO : delay;
    }

    public Duration delay() {
        return delay;
    }
}
