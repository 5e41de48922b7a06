package com.liveodds.push.recovery;

import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Where an accepted recovery goes when its matches are not all this instance's to push (contract 20, scale-out: the
 * instance that owns a match's partition pushes it). Without a routing, {@link Recoveries} runs every recovery here.
 */
public interface RecoveryRouting {

    /**
     * Hands an accepted request on to the instances that push its matches, before it is answered 202; returns the
     * parts it was cut into, each of which reports its {@link Progress}. Throws when it cannot be handed on (the
     * request is then refused with 503, not counted).
     */
    Set<String> route(Request request);

    /** An accepted request: its partner (the path's id), matches, {@code after} (null for one match) and count. */
    record Request(String requestId, String partnerId, List<String> matches, Instant after, int messages, Instant askedAt) {
    }

    /**
     * How far one part got: {@code queued}, {@code running}, {@code complete} or {@code failed}, its counts (pushes
     * delivered, refused by the partner, superseded), and when it ended (null while it runs).
     */
    record Progress(String state, int delivered, int refused, int superseded, Instant endedAt, String error) {

        public static final Set<String> STATES = Set.of("queued", "running", "complete", "failed");

        public boolean isEnded() {
            return "complete".equals(state) || "failed".equals(state);
        }
    }

    /** A part of a routed request that this instance pushes: some of the request's matches. */
    interface Part {

        Request request();

        List<String> matches();

        /**
         * On the partner's recovery thread, as the part starts: the newest sequence number of the retained messages it
         * pushes (what follows goes live); empty when this instance no longer owns the part (its new owner pushes it).
         */
        OptionalLong upTo() throws Exception;

        /** Whether its partition is still this instance's: its pushes queued here are withdrawn once it is not. */
        boolean isHere();

        /** The part runs; its progress can be read while it does. */
        void started(Supplier<Progress> progress);

        void ended(Progress progress);

        /** Not run here after all, or not to its end ({@link #upTo} empty: its partition moved; or the service is stopping). */
        void dropped();
    }
}
