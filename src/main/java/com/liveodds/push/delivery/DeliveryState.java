package com.liveodds.push.delivery;

import java.time.Instant;

import com.liveodds.push.partner.PartnerAnswer;
import org.apache.camel.Exchange;

/**
 * The progress of one push through its attempts: what the dead letters, the HTTP source's receipt, replay and the
 * status report read of it. Lives in the exchange variable {@value #VARIABLE} while the push is queued; the push route
 * decides what comes next, this only records it.
 */
public class DeliveryState {

    public static final String VARIABLE = "delivery";

    /**
     * FAILED: a heartbeat that got no 2xx (never retried). SUPERSEDED: a snapshot of its match came in first; the
     * source may forget the message, like a delivered one, but it never reached the partner. REFUSED: a recovered push
     * the partner did not take (refused, or out of retry budget), which is not dead-lettered.
     */
    public enum Outcome { DELIVERED, DEAD_LETTERED, HANDED_BACK, FAILED, SUPERSEDED, NOT_BOOKED, REFUSED }

    static final String NOT_BOOKED_REASON = "its match is not booked for this partner";
    static final String SUPERSEDED_REASON = "superseded by a later snapshot of its match";

    private final Push push;
    private final Instant firstAttemptAt;
    private int attempts;
    private boolean renewedFor401;
    private volatile Outcome outcome;
    private long delayMillis;
    private PartnerAnswer last = new PartnerAnswer(0, null, null, null, null, false);
    private String reason;
    private RetryPolicy.Decision decision;

    public DeliveryState(Push push, Instant firstAttemptAt) {
        this.push = push;
        this.firstAttemptAt = firstAttemptAt;
    }

    /** The state of the push the exchange carries, begun at its first attempt. */
    static DeliveryState of(Exchange exchange, Instant now) {
        DeliveryState state = exchange.getVariable(VARIABLE, DeliveryState.class);
        if (state == null) {
            state = new DeliveryState(exchange.getMessage().getBody(Push.class), now);
            exchange.setVariable(VARIABLE, state);
        }
        return state;
    }

    public Push getPush() {
        return push;
    }

    public boolean isDelivered() {
        return outcome == Outcome.DELIVERED;
    }

    public boolean isDeadLettered() {
        return outcome == Outcome.DEAD_LETTERED;
    }

    /** How the push ended ({@code delivered}, {@code superseded}, ...), or null while it goes on. */
    public String getOutcome() {
        return outcome == null ? null : outcome.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Why it was dead-lettered, handed back or superseded. */
    public String getReason() {
        return reason;
    }

    public String getDeadLetterReason() {
        return isDeadLettered() ? reason : null;
    }

    public long getDelayMillis() {
        return delayMillis;
    }

    public int getAttempts() {
        return attempts;
    }

    public int getLastStatus() {
        return last.status();
    }

    public String getLastResponseBody() {
        return last.body();
    }

    public String getLastError() {
        return last.error();
    }

    public Instant getFirstAttemptAt() {
        return firstAttemptAt;
    }

    /** What became of the push so far, as those outside delivery see it (dead letters, the HTTP receipt, replay). */
    public PushOutcome getResult() {
        return new PushOutcome(push, getOutcome(), reason, attempts, last.status(), last.body(), last.error(), firstAttemptAt);
    }

    boolean isRenewedFor401() {
        return renewedFor401;
    }

    Outcome outcome() {
        return outcome;
    }

    void attemptStarted() {
        attempts++;
        delayMillis = 0;
    }

    void answered(PartnerAnswer answer) {
        last = answer;
    }

    void end(Outcome outcome, String reason) {
        this.outcome = outcome;
        this.reason = reason;
        this.delayMillis = 0;
    }

    /** Ends it as the queue ended it, unless a step of the push route already said how. */
    void endIfOpen(Outcome outcome, String reason) {
        if (this.outcome == null) {
            end(outcome, reason);
        }
    }

    /** The verdict on the last attempt, which the push route's choice carries out. */
    RetryPolicy.Decision getDecision() {
        return decision;
    }

    void judged(RetryPolicy.Decision decision) {
        this.decision = decision;
    }

    void retryIn(long delayMillis, boolean after401) {
        this.delayMillis = delayMillis;
        this.renewedFor401 |= after401;
    }
}
