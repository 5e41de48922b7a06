package com.liveodds.push.queue;

/** The headers and exchange properties a {@code liveoddsQueue} endpoint reads and writes. */
public final class KeyedQueueConstants {

    /** Header, required: the key whose order the exchange keeps (a match id). */
    public static final String KEY = "CamelLiveoddsKey";
    /** Header, boolean: with {@code supersede=true}, this exchange supersedes the supersedable ones of its key queued before it. */
    public static final String SUPERSEDES = "CamelLiveoddsSupersedes";
    /** Header, boolean: a later superseding exchange of the key may end this one unrun (or unrun again). */
    public static final String SUPERSEDABLE = "CamelLiveoddsSupersedable";
    /**
     * Header, a {@link KeyHold} of the key: the exchange goes before those of its key held behind the hold (see
     * {@link KeyedQueueEndpoint#hold}).
     */
    public static final String BEFORE = "CamelLiveoddsBefore";
    /** Header, long: the bytes the exchange holds in memory, counted against the endpoint's {@code maxBytes}. */
    public static final String WEIGHT = "CamelLiveoddsWeight";
    /**
     * Header, a {@code java.time.Duration} (or milliseconds) the route sets to have the exchange run again, at the head
     * of its key, once that much time has passed, rather than end when its route completes. The queue owns the wait:
     * no thread is held, the later exchanges of the key wait behind it, and a withdrawal, a superseding exchange or a
     * shutdown ends the wait at once. Read and removed as the run ends; a run that failed fails, whatever it asked.
     */
    public static final String RETRY_AFTER = "CamelLiveoddsRetryAfter";
    /** Exchange property, true: the exchange ended superseded (completed, never run, or not run again). */
    public static final String SUPERSEDED = "CamelLiveoddsSuperseded";

    /**
     * Exchange property, an {@code AtomicBoolean} the queue sets in the exchanges it holds: true once a later exchange of
     * the key superseded it. A route that would give up on a superseded exchange (dead-letter it) asks for a retry
     * ({@link #RETRY_AFTER}) instead, and the queue ends it superseded.
     */
    public static final String SUPERSEDED_MARK = "CamelLiveoddsSupersededMark";

    private KeyedQueueConstants() {
    }
}
