package com.liveodds.push.delivery;

import java.util.Collection;

import org.apache.camel.Exchange;
import org.apache.camel.Predicate;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * The contract between a source and delivery for one message: the source hands the message over (accept: its route
 * sends the exchange to delivery), delivery asks {@link #isWithdrawn()} before every attempt and while a retry
 * waits, and the message ends with exactly one of {@link #acknowledge()} (delivered, dead-lettered, superseded by a
 * later snapshot, rejected, or an {@code alive}) or {@link #handBack(String)} (neither: the source delivers it again later). Delivery never reads a
 * source's internals and a source never reads delivery's: the end of the exchange (completed or failed) is what
 * calls one or the other, wherever the exchange ends.
 */
public interface SourceHandover {

    /** Exchange variable that carries the handover of the message. */
    String VARIABLE = "sourceHandover";

    /** The source wants the message back untried (its Kafka partition moved away, its JMS session closed). */
    default boolean isWithdrawn() {
        return false;
    }

    /** Delivery queues the message under its match (the order delivery keeps is that match's), before it may run. */
    default void queuedUnder(String matchId) {
    }

    /**
     * The message is done with: the source may forget it (commit, acknowledge). A superseded message comes here as
     * soon as the snapshot that supersedes it is queued, possibly before earlier messages of its source end.
     */
    void acknowledge();

    /** Neither delivered nor dead-lettered (shutdown, withdrawn, a failure): the source keeps it for later. */
    void handBack(String why);

    /** Whether the source of the message in the exchange withdrew it (the queue's {@code handBackWhen}). */
    Predicate WITHDRAWN = exchange -> of(exchange).isWithdrawn();

    /** For sources whose acknowledgement is the end of their Camel exchange itself (file, HTTP, replay). */
    SourceHandover NONE = new SourceHandover() {
        @Override
        public void acknowledge() {
        }

        @Override
        public void handBack(String why) {
        }
    };

    /**
     * A message its source shares out among several partners itself (the inbox read once for all of them, contract 16):
     * which partners take it now, and a handover of each partner's copy of its own, so the source hears of each
     * partner's end without waiting for the others. Delivery attaches {@link #forPartner} to the copy it queues for that
     * partner; a partner it queues nothing for (not booked, or the message ended at ingest) ends with the exchange.
     */
    interface Shared {

        /** Exchange variable that carries the share of the message. */
        String VARIABLE = "sourceShared";

        /** The partners that take the message now, by name. */
        Collection<String> partners();

        /** The handover of the partner's copy, which joins its queue now. */
        SourceHandover forPartner(String partner);
    }

    /** The handover of the message in the exchange ({@link #NONE} when its source needs none). */
    static SourceHandover of(Exchange exchange) {
        SourceHandover handover = exchange.getVariable(VARIABLE, SourceHandover.class);
        return handover != null ? handover : NONE;
    }

    /** Called by a source before the exchange leaves it: the end of the exchange acknowledges or hands back. */
    static void attach(Exchange exchange, SourceHandover handover) {
        exchange.setVariable(VARIABLE, handover);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onComplete(Exchange done) {
                handover.acknowledge();
            }

            @Override
            public void onFailure(Exchange failed) {
                Exception cause = failed.getException();
                handover.handBack(cause == null ? "failed" : cause.getMessage());
            }
        });
    }
}
