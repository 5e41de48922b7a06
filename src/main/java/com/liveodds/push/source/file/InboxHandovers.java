package com.liveodds.push.source.file;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

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

    /** Matches remembered before hand-backs older than a minute (their files long read again) are forgotten. */
    private static final int MOST = 10_000;
    private static final long FORGOTTEN_AFTER_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Map<String, Long> handedBackAt = new ConcurrentHashMap<>();

    /**
     * As the file leaves the inbox: its handover, stamped with the moment it was read, when the poll made its exchange
     * (Camel makes a poll's exchanges before it runs the first; a file of the poll can reach this step after another of
     * its match failed). A millisecond early at most: a file read just after a hand-back may be withdrawn too, and read
     * again.
     */
    public void attach(Exchange exchange) {
        long readAt = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(exchange.getClock().elapsed() + 1);
        SourceHandover.attach(exchange, new FileHandover(readAt));
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
            withdrawn = at != null && at - readAt >= 0;
            return withdrawn;
        }

        @Override
        public void acknowledge() {
            // the file component moves the file to .done
        }

        @Override
        public void handBack(String why) {
            // a file withdrawn here marks nothing: what it waited for was handed back before it
            if (match != null && !withdrawn) {
                long now = System.nanoTime();
                if (handedBackAt.size() >= MOST) {
                    handedBackAt.values().removeIf(at -> now - at > FORGOTTEN_AFTER_NANOS);
                }
                handedBackAt.put(match, now);
            }
        }
    }
}
