package com.liveodds.push.source.file;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.liveodds.push.delivery.SourceHandover;
import org.apache.camel.Exchange;

/**
 * The single partner's inbox (route liveodds-source-file) as a source with a handover: a file handed back to the inbox
 * (its push failed) withdraws the files of its match read before that moment that have not run yet, so none of them
 * overtakes it; they go back to the inbox too, and a later listing reads them again after it, in file-name order. The
 * queue hands back what waits behind a failed push on its match; this covers the files of the same poll that reach the
 * queue only after the push failed.
 */
public class InboxHandovers {

    /** Matches remembered at most; past it the oldest hand-backs are long over and all are forgotten. */
    private static final int MOST = 10_000;

    private final AtomicLong clock = new AtomicLong();
    private final Map<String, Long> handedBackAt = new ConcurrentHashMap<>();

    /** As the file leaves the inbox: its handover, stamped with the moment it was read. */
    public void attach(Exchange exchange) {
        SourceHandover.attach(exchange, new FileHandover(clock.get()));
    }

    private final class FileHandover implements SourceHandover {
        private final long readAt;
        private volatile String match;
        private volatile boolean withdrawn;

        FileHandover(long readAt) {
            this.readAt = readAt;
        }

        @Override
        public void queuedUnder(String matchId) {
            match = matchId;
        }

        @Override
        public boolean isWithdrawn() {
            Long at = match == null ? null : handedBackAt.get(match);
            withdrawn = at != null && at > readAt;
            return withdrawn;
        }

        @Override
        public void acknowledge() {
            // the file component moves the file to .done
        }

        @Override
        public void handBack(String why) {
            // a file withdrawn here withdraws nothing more: what it waited for is already handed back
            if (match != null && !withdrawn) {
                if (handedBackAt.size() >= MOST) {
                    handedBackAt.clear();
                }
                handedBackAt.put(match, clock.incrementAndGet());
            }
        }
    }
}
