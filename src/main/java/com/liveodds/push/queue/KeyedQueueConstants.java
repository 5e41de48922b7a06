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
    /** Exchange property, true: the exchange ended superseded (completed, never run, or not run again). */
    public static final String SUPERSEDED = "CamelLiveoddsSuperseded";

    /**
     * Exchange property, an {@code AtomicBoolean} the queue sets in the exchanges it holds: true once a later exchange of
     * the key superseded it. A route that would give up on a superseded exchange (dead-letter it) throws
     * {@link RetryLater} instead, and the queue ends it superseded.
     */
    public static final String SUPERSEDED_MARK = "CamelLiveoddsSupersededMark";

    private KeyedQueueConstants() {
    }
}
