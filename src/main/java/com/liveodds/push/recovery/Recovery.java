package com.liveodds.push.recovery;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.settings.Timestamps;

/**
 * One recovery a partner asked for (contract 20): what it covers, the messages counted when it was answered, and
 * how far it got: {@code queued}, {@code running}, {@code complete} (every message delivered, dead-lettered or
 * superseded) or {@code failed} (the retained messages could not be read, or a push was handed back, e.g. at
 * shutdown).
 */
final class Recovery {

    enum State { QUEUED, RUNNING, COMPLETE, FAILED }

    private final String requestId;
    private final String partner;
    private final String partnerId;
    private final List<RetainedMessages.Selection> selections;
    private final int messages;
    private final Instant askedAt;
    private final AtomicInteger delivered = new AtomicInteger();
    private final AtomicInteger deadLettered = new AtomicInteger();
    private final AtomicInteger superseded = new AtomicInteger();
    private volatile State state = State.QUEUED;
    private volatile String error;
    private volatile Instant endedAt;

    Recovery(String requestId, String partner, String partnerId, List<RetainedMessages.Selection> selections, int messages,
             Instant askedAt) {
        this.requestId = requestId;
        this.partner = partner;
        this.partnerId = partnerId;
        this.selections = selections;
        this.messages = messages;
        this.askedAt = askedAt;
    }

    String requestId() {
        return requestId;
    }

    String partner() {
        return partner;
    }

    List<RetainedMessages.Selection> selections() {
        return selections;
    }

    State state() {
        return state;
    }

    void running() {
        state = State.RUNNING;
    }

    void delivered() {
        delivered.incrementAndGet();
    }

    void deadLettered() {
        deadLettered.incrementAndGet();
    }

    void superseded() {
        superseded.incrementAndGet();
    }

    void end(String failure) {
        error = failure;
        endedAt = Instant.now();
        state = failure == null ? State.COMPLETE : State.FAILED;
    }

    /** The 202 answer: {@code request_id}, {@code matches} and {@code messages}. */
    ObjectNode accepted() {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("request_id", requestId);
        body.put("matches", selections.size());
        body.put("messages", messages);
        return body;
    }

    /** What {@code GET .../recovery/{request_id}} and {@code /admin/status} tell. */
    ObjectNode status() {
        ObjectNode body = accepted();
        body.put("partner", partner.isEmpty() ? partnerId : partner);
        body.put("state", state.name().toLowerCase(java.util.Locale.ROOT));
        body.put("delivered", delivered.get());
        body.put("dead_lettered", deadLettered.get());
        body.put("superseded", superseded.get());
        body.put("asked_at", Timestamps.format(askedAt));
        if (endedAt != null) {
            body.put("ended_at", Timestamps.format(endedAt));
        } else {
            body.putNull("ended_at");
        }
        if (error != null) {
            body.put("error", error);
        }
        return body;
    }
}
