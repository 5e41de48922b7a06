package com.liveodds.push.source.file;

import java.time.Duration;

import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.support.DefaultPollingConsumerPollStrategy;

/**
 * The single partner's inbox (route liveodds-source-file): while many files are in hand (read, their pushes not ended)
 * and delivery is working through them, the listing waits, at most {@code longestWait}. Camel's file consumer looks at
 * every file in hand again at each listing (two stat calls each) before it skips it: a backlog of thousands listed
 * every poll-delay cost more CPU than the pushes (docs/benchmarks.md), while those in hand kept delivery busy anyway.
 * Files in hand that do not move (a match or the partner in retry) never hold back a listing: a match that waits on
 * its back-off delays no other match's new files (contract 10). The files in hand are those the route's
 * {@link InboxInProgress} holds; on an endpoint with another in-progress repository it never waits. Whether they go
 * is counted from the files in hand once a listing has taken its own, not before it: otherwise each listing's files
 * look like files that do not move, and the inbox is listed at every poll-delay until the queue is full.
 */
public class InboxPace extends DefaultPollingConsumerPollStrategy {

    private final int inHand;
    private final long longestWaitNanos;
    private volatile long listedAt = System.nanoTime();
    private volatile int inHandBefore;

    /**
     * @param inHand      files in hand from which the listing waits while they go
     * @param longestWait how long it waits at most, from the last listing
     */
    public InboxPace(int inHand, Duration longestWait) {
        this.inHand = inHand;
        this.longestWaitNanos = longestWait.toNanos();
    }

    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        long now = System.nanoTime();
        int held = inHand(endpoint);
        boolean going = held < inHandBefore;
        inHandBefore = held;
        if (held >= inHand && going && now - listedAt < longestWaitNanos) {
            return false;
        }
        listedAt = now;
        return true;
    }

    @Override
    public void commit(Consumer consumer, Endpoint endpoint, int polledMessages) {
        inHandBefore = inHand(endpoint);
    }

    private static int inHand(Endpoint endpoint) {
        if (endpoint instanceof GenericFileEndpoint<?> files && files.getInProgressRepository() instanceof InboxInProgress inProgress) {
            return inProgress.size();
        }
        return 0;
    }
}
