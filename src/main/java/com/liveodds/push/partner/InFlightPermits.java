package com.liveodds.push.partner;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * At most N requests on the wire at once, without a thread per waiting request: a caller hands over what to run once
 * it has a permit; waiting work queues FIFO and is started on {@code executor} as permits come back (never on the
 * releasing caller's stack, so a long queue of requests failing at once cannot overflow it).
 */
final class InFlightPermits {

    private final Executor executor;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
    private int free;

    InFlightPermits(int permits, Executor executor) {
        if (permits < 1) {
            throw new IllegalArgumentException("liveodds.delivery.max-in-flight must be at least 1, not " + permits);
        }
        this.free = permits;
        this.executor = executor;
    }

    /** Runs {@code work} now if a permit is free, else once one is; {@code work} must end with {@link #release()}. */
    void run(Runnable work) {
        synchronized (this) {
            if (free == 0) {
                waiting.addLast(work);
                return;
            }
            free--;
        }
        work.run();
    }

    /** Gives the permit back, or straight to the longest waiting work. */
    void release() {
        Runnable next;
        synchronized (this) {
            next = waiting.pollFirst();
            if (next == null) {
                free++;
                return;
            }
        }
        executor.execute(next);
    }
}
