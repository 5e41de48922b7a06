package com.liveodds.push.source.file;

import java.time.Duration;

import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.DefaultPollingConsumerPollStrategy;
import org.apache.camel.support.processor.idempotent.MemoryIdempotentRepository;

/**
 * The single partner's inbox (route liveodds-source-file): while it has many files in hand (read, not yet done), the
 * listing waits, at most {@code longestWait}. Camel's file consumer looks at every file it has in hand again at each
 * listing (two stat calls each) before it skips it, so a backlog of thousands listed every poll-delay cost more than
 * the pushes themselves (docs/benchmarks.md); those in hand keep delivery busy meanwhile. A match in retry holds back
 * no other match's files longer than {@code longestWait}.
 */
public class InboxPace extends DefaultPollingConsumerPollStrategy {

    private final int inHand;
    private final long longestWaitNanos;
    private volatile long listedAt = System.nanoTime();

    /**
     * @param inHand      files in hand from which the listing waits
     * @param longestWait how long it waits at most, from the last listing
     */
    public InboxPace(int inHand, Duration longestWait) {
        this.inHand = inHand;
        this.longestWaitNanos = longestWait.toNanos();
    }

    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        long now = System.nanoTime();
        if (inHand(endpoint) >= inHand && now - listedAt < longestWaitNanos) {
            return false;
        }
        listedAt = now;
        return true;
    }

    private static int inHand(Endpoint endpoint) {
        if (endpoint instanceof GenericFileEndpoint<?> files) {
            IdempotentRepository inProgress = files.getInProgressRepository();
            if (inProgress instanceof MemoryIdempotentRepository memory) {
                return memory.getCacheSize();
            }
        }
        return 0;
    }
}
