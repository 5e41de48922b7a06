package com.liveodds.push.delivery;

import java.time.Instant;

import com.liveodds.push.partner.PartnerAnswer;
import org.apache.camel.Exchange;

/**
 * The progress of one push through its attempts; lives in the exchange variable {@value #VARIABLE} while the push
 * route runs, and tells the route what comes next ({@value #AGAIN}, {@value #OUTCOME}).
 */
public class DeliveryState {

    public static final String VARIABLE = "delivery";
    /** Boolean variable: another attempt is due (the loop condition of the push route). */
    public static final String AGAIN = "again";
    /**
     * String variable: {@code delivered}, {@code dead_lettered}, {@code handed_back}, {@code failed} or
     * {@code superseded} once the push has ended.
     */
    public static final String OUTCOME = "outcome";

    /**
     * FAILED: a heartbeat that got no 2xx (never retried). SUPERSEDED: a snapshot of its match came in first; the
     * source may forget the message, like a delivered one, but it never reached the partner.
     */
    public enum Outcome { DELIVERED, DEAD_LETTERED, HANDED_BACK, FAILED, SUPERSEDED, NOT_BOOKED }

    static final String NOT_BOOKED_REASON = "its match is not booked for this partner";
    static final String SUPERSEDED_REASON = "superseded by a later snapshot of its match";

    private final Push push;
    private final Instant firstAttemptAt;
    private int attempts;
    private boolean renewedFor401;
    private Outcome outcome;
    private long delayMillis;
    private int lastStatus;
    private String lastResponseBody;
    private String lastError;
    private String reason;
    /** A later snapshot of the match came in: no further attempt, and a failed one is not retried. */
    private volatile boolean superseded;
    /** What ends the push's wait at once when it is superseded meanwhile (see {@link #whenSuperseded}). */
    private Runnable onSuperseded;

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

    public boolean isAgain() {
        return outcome == null;
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
        return lastStatus;
    }

    public String getLastResponseBody() {
        return lastResponseBody;
    }

    public String getLastError() {
        return lastError;
    }

    public Instant getFirstAttemptAt() {
        return firstAttemptAt;
    }

    /** What became of the push so far, as those outside delivery see it (dead letters, the HTTP receipt, replay). */
    public PushOutcome getResult() {
        return new PushOutcome(push, getOutcome(), reason, attempts, lastStatus, lastResponseBody, lastError, firstAttemptAt);
    }

    boolean isRenewedFor401() {
        return renewedFor401;
    }

    Outcome outcome() {
        return outcome;
    }

    /** Marked by a later snapshot of its match (the push may still end delivered if its attempt was on the wire). */
    public boolean isSuperseded() {
        return superseded;
    }

    /**
     * A later snapshot of the match came in: the push is not to be tried again. A wait registered with
     * {@link #whenSuperseded} ends now, on the calling thread.
     */
    void supersede() {
        Runnable end;
        synchronized (this) {
            if (superseded) {
                return;
            }
            superseded = true;
            end = onSuperseded;
            onSuperseded = null;
        }
        if (end != null) {
            end.run();
        }
    }

    /**
     * The seam for a push waiting out a back-off: {@code end} runs once if the push is superseded during the wait (at
     * once if it already is). The next wait's registration replaces it; running it after its wait ended must be
     * harmless.
     */
    void whenSuperseded(Runnable end) {
        synchronized (this) {
            if (!superseded) {
                onSuperseded = end;
                return;
            }
        }
        end.run();
    }

    void attemptStarted() {
        attempts++;
        delayMillis = 0;
    }

    void answered(PartnerAnswer answer) {
        lastStatus = answer.status();
        lastResponseBody = answer.body();
        lastError = answer.error();
    }

    void end(Outcome outcome, String reason) {
        this.outcome = outcome;
        this.reason = reason;
        this.delayMillis = 0;
    }

    void retryIn(long delayMillis, boolean after401) {
        this.delayMillis = delayMillis;
        this.renewedFor401 |= after401;
    }

    /** Writes what the push route reads next. */
    void publish(Exchange exchange) {
        exchange.setVariable(AGAIN, isAgain());
        if (outcome != null) {
            exchange.setVariable(OUTCOME, getOutcome());
        }
    }
}
