package com.liveodds.push.deadletter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead letters of each partner, counted, and their bound {@code liveodds.dead-letter.max-per-partner} (contract
 * 22). A letter counts toward the partner it records ({@code ""}: none, a rejected message with several partners; with
 * the single partner every letter is its own). At the bound {@link DeadLetterStore#undeliverable} refuses a further
 * letter of that partner, and its delivery asks {@link #isFull} first and holds the push instead (not dropped, not
 * acknowledged): that question is where pausing the partner (contract 24) hooks in. Counted from the folder once, then
 * kept up to date by the store's writes and removals.
 */
public class DeadLetterBudget {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterBudget.class);

    private final long maxPerPartner;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    public DeadLetterBudget(long maxPerPartner) {
        this.maxPerPartner = maxPerPartner;
    }

    /** {@code liveodds.dead-letter.max-per-partner}. */
    public long limit() {
        return maxPerPartner;
    }

    /** Whether the partner ({@code ""}: the single partner) has as many dead letters as it may have. */
    public boolean isFull(String partner) {
        return count(partner) >= maxPerPartner;
    }

    public long count(String partner) {
        AtomicLong count = counts.get(key(partner));
        return count == null ? 0 : count.get();
    }

    long total() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** A place for one more letter of the partner; false at the bound (logged when the partner reaches it). */
    boolean take(String partner) {
        AtomicLong count = counter(partner);
        long now;
        do {
            now = count.get();
            if (now >= maxPerPartner) {
                return false;
            }
        } while (!count.compareAndSet(now, now + 1));
        if (now + 1 == maxPerPartner) {
            LOG.error("{} {} dead letters, as many as liveodds.dead-letter.max-per-partner allows: its further pushes that"
                    + " would be dead-lettered are held, unacknowledged, until dead letters are replayed or removed", who(partner),
                    maxPerPartner);
        }
        return true;
    }

    /** A place taken that was not used: the letter could not be written. */
    void givenBack(String partner) {
        counter(partner).decrementAndGet();
    }

    /** A letter written without a place taken: a rejected message's, which no bound refuses. */
    void added(String partner) {
        counter(partner).incrementAndGet();
    }

    void removed(String partner) {
        AtomicLong count = counter(partner);
        if (count.getAndUpdate(c -> Math.max(0, c - 1)) == maxPerPartner) {
            LOG.info("{} dead letters below liveodds.dead-letter.max-per-partner again", who(partner));
        }
    }

    /** The counts of a listing of the whole folder. */
    void counted(Map<String, Long> byPartner) {
        counts.keySet().retainAll(byPartner.keySet());
        byPartner.forEach((partner, count) -> counter(partner).set(count));
    }

    private AtomicLong counter(String partner) {
        return counts.computeIfAbsent(key(partner), p -> new AtomicLong());
    }

    private static String key(String partner) {
        return partner == null ? "" : partner;
    }

    private static String who(String partner) {
        return key(partner).isEmpty() ? "The partner has" : "Partner " + partner + " has";
    }
}
