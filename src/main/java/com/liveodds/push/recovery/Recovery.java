package com.liveodds.push.recovery;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.settings.Timestamps;

/**
 * One recovery a partner asked for (contract 20): what it covers, the messages counted when it was answered, and
 * how far it got: {@code queued}, {@code running}, {@code complete} (every message delivered, refused by the partner
 * or superseded; a refused one is counted here and not dead-lettered, contract 22) or {@code failed} (the retained messages could not be read, or a push was handed back, e.g. at
 * shutdown). A recovery routed to other instances (RecoveryRouting) is as far as its parts' latest reports say.
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
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger superseded = new AtomicInteger();
    private volatile State state = State.QUEUED;
    private volatile String error;
    private volatile Instant endedAt;
    /** Routed: the parts it was cut into, and each one's latest report; null while it runs here. */
    private volatile Set<String> parts;
    private final Map<String, RecoveryRouting.Progress> reports = new ConcurrentHashMap<>();

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

    Instant askedAt() {
        return askedAt;
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

    void refused() {
        refused.incrementAndGet();
    }

    void superseded() {
        superseded.incrementAndGet();
    }

    void end(String failure) {
        error = failure;
        endedAt = Instant.now();
        state = failure == null ? State.COMPLETE : State.FAILED;
    }

    /** Pushed by the instances that own its matches: it is as far as their reports of these parts say. */
    void routed(Set<String> parts) {
        this.parts = Set.copyOf(parts);
    }

    /** A part's latest report; kept even before {@link #routed} (a fast owner), read for the parts it was cut into. */
    void reported(String part, RecoveryRouting.Progress progress) {
        reports.put(part, progress);
    }

    /** What the routing hands on. */
    RecoveryRouting.Request request() {
        Instant after = selections.isEmpty() ? null : selections.get(0).after();
        return new RecoveryRouting.Request(requestId, partnerId,
                selections.stream().map(RetainedMessages.Selection::matchId).toList(), after, messages, askedAt);
    }

    /** How far it got, as a part reports it. */
    RecoveryRouting.Progress progress() {
        return new RecoveryRouting.Progress(state.name().toLowerCase(Locale.ROOT), delivered.get(), refused.get(),
                superseded.get(), endedAt, error);
    }

    /** Routed: queued until a part reports, complete or failed once every part has ended, running in between. */
    private RecoveryRouting.Progress fromReports(Set<String> expected) {
        List<RecoveryRouting.Progress> got = expected.stream().map(reports::get).filter(Objects::nonNull).toList();
        boolean ended = got.size() == expected.size() && got.stream().allMatch(RecoveryRouting.Progress::isEnded);
        String failure = got.stream().map(RecoveryRouting.Progress::error).filter(Objects::nonNull).findFirst().orElse(null);
        String state = ended ? (got.stream().anyMatch(p -> p.state().equals("failed")) ? "failed" : "complete")
                : got.isEmpty() ? "queued" : "running";
        Instant last = ended ? got.stream().map(RecoveryRouting.Progress::endedAt).filter(Objects::nonNull)
                .max(Instant::compareTo).orElse(askedAt) : null;
        return new RecoveryRouting.Progress(state, got.stream().mapToInt(RecoveryRouting.Progress::delivered).sum(),
                got.stream().mapToInt(RecoveryRouting.Progress::refused).sum(),
                got.stream().mapToInt(RecoveryRouting.Progress::superseded).sum(), last, ended ? failure : null);
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
        Set<String> expected = parts;
        RecoveryRouting.Progress now = expected == null ? progress() : fromReports(expected);
        ObjectNode body = accepted();
        body.put("partner", partner.isEmpty() ? partnerId : partner);
        body.put("state", now.state());
        body.put("delivered", now.delivered());
        body.put("refused", now.refused());
        body.put("superseded", now.superseded());
        body.put("asked_at", Timestamps.format(askedAt));
        if (now.endedAt() != null) {
            body.put("ended_at", Timestamps.format(now.endedAt()));
        } else {
            body.putNull("ended_at");
        }
        if (now.error() != null) {
            body.put("error", now.error());
        }
        return body;
    }
}
