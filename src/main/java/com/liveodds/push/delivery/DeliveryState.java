package com.liveodds.push.delivery;

import java.time.Instant;
import java.util.function.BooleanSupplier;

/** The progress of one push through its attempts; lives in the exchange property {@code delivery}. */
public class DeliveryState {

    private final Push push;
    private final Instant firstAttemptAt;
    private int attempts;
    private boolean again = true;
    private boolean delivered;
    private boolean renewedFor401;
    private boolean interrupted;
    private boolean withdrawn;
    private BooleanSupplier wanted = () -> true;
    private long delayMillis;
    private int lastStatus;
    private String lastResponseBody;
    private String lastError;
    private String deadLetterReason;
    /** The token sent with the current attempt, so a 401 invalidates exactly that one. Never logged. */
    private transient String tokenInUse;

    public DeliveryState(Push push, Instant firstAttemptAt) {
        this.push = push;
        this.firstAttemptAt = firstAttemptAt;
    }

    public Push getPush() {
        return push;
    }

    /** Loop condition of the delivery route: another attempt is due. */
    public boolean isAgain() {
        return again;
    }

    public boolean isDelivered() {
        return delivered;
    }

    public boolean isDeadLettered() {
        return !again && !delivered && !interrupted;
    }

    /** Neither delivered nor dead-lettered: the service stopped while the push waited for its next attempt. */
    public boolean isInterrupted() {
        return interrupted;
    }

    void interrupt() {
        interrupted = true;
        again = false;
    }

    /** Whether the source still wants this push made (a Kafka partition that moved away no longer does). */
    public boolean isWanted() {
        return wanted.getAsBoolean();
    }

    void wantedWhile(BooleanSupplier wanted) {
        this.wanted = wanted;
    }

    /** Ends the push unacknowledged because its source no longer wants it; its match goes on with later messages. */
    void withdraw() {
        interrupt();
        withdrawn = true;
    }

    /** Interrupted because the source withdrew it, not because the service stops. */
    public boolean isWithdrawn() {
        return withdrawn;
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

    public String getDeadLetterReason() {
        return deadLetterReason;
    }

    public Instant getFirstAttemptAt() {
        return firstAttemptAt;
    }

    boolean isRenewedFor401() {
        return renewedFor401;
    }

    String tokenInUse() {
        return tokenInUse;
    }

    void attemptStarted() {
        attempts++;
        tokenInUse = null;
        lastStatus = 0;
        lastResponseBody = null;
        lastError = null;
    }

    void useToken(String token) {
        tokenInUse = token;
    }

    void answered(int status, String responseBody) {
        lastStatus = status;
        lastResponseBody = responseBody;
    }

    void failed(String error) {
        lastError = error;
    }

    void apply(RetryPolicy.Decision decision, int status) {
        delayMillis = decision.delay().toMillis();
        switch (decision.action()) {
            case DELIVERED -> {
                delivered = true;
                again = false;
            }
            case RETRY -> {
                if (status == 401) {
                    renewedFor401 = true;
                }
            }
            case DEAD_LETTER -> {
                again = false;
                deadLetterReason = decision.reason();
            }
        }
    }
}
