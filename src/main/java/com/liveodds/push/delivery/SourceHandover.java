package com.liveodds.push.delivery;

/**
 * The contract between a source and delivery for one message. A source hands a message over (accept) with one of
 * these; delivery then asks {@link #isWithdrawn()} before every attempt and ends with exactly one of
 * {@link #acknowledge()} or {@link #handBack(String)}. Delivery never reads a source's internals, and a source never
 * reads delivery's.
 */
public interface SourceHandover {

    /** The source wants the message back untried (its Kafka partition moved away, its JMS session closed). */
    default boolean isWithdrawn() {
        return false;
    }

    /** The message is delivered or durably dead-lettered: the source may forget it (commit, acknowledge, move). */
    void acknowledge();

    /** Neither delivered nor dead-lettered (shutdown, withdrawn): the source keeps it and delivers it again later. */
    void handBack(String why);

    /** For sources whose acknowledgement is the completion of their Camel exchange (file, HTTP, replay). */
    SourceHandover NOTHING_TO_DO = new SourceHandover() {
        @Override
        public void acknowledge() {
        }

        @Override
        public void handBack(String why) {
        }
    };
}
