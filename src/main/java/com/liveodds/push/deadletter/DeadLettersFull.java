package com.liveodds.push.deadletter;

/**
 * A dead letter not written: its partner has as many as {@code liveodds.dead-letter.max-per-partner} allows. The push
 * fails and its source keeps it (contract 22: not dropped, not acknowledged).
 */
public class DeadLettersFull extends IllegalStateException {

    DeadLettersFull(String partner, long limit) {
        super((partner.isEmpty() ? "the partner has " : "partner " + partner + " has ") + limit
                + " dead letters (liveodds.dead-letter.max-per-partner): no further one is written");
    }
}
