package com.liveodds.push.delivery;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.ThreadLocalRandom;

import com.liveodds.push.settings.Durations;

/**
 * What to do after a push attempt (contract section 7): 2xx delivered; 401 renew the token and retry at once, once;
 * 408, 429, 5xx, time-outs and connection errors retry with exponential back-off and jitter, honouring
 * {@code Retry-After}, while the retry budget lasts; any other status dead-letters at once.
 */
public class RetryPolicy {

    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private volatile Duration maxElapsed;

    public RetryPolicy() {
        this(Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofMinutes(10));
    }

    public RetryPolicy(Duration initialBackoff, Duration maxBackoff, Duration maxElapsed) {
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
        this.maxElapsed = maxElapsed;
    }

    /** The retry budget of one message, {@code 10m} by default. */
    public void setMaxElapsed(String maxElapsed) {
        this.maxElapsed = Durations.parse(maxElapsed);
    }

    public enum Action { DELIVERED, RETRY, DEAD_LETTER }

    /** @param delay how long to wait before the next attempt (RETRY only) */
    public record Decision(Action action, Duration delay, String reason) {
        static Decision delivered() {
            return new Decision(Action.DELIVERED, Duration.ZERO, null);
        }
    }

    /**
     * @param status        HTTP status, or 0 when the attempt got no answer (time-out, connection error, no token)
     * @param retryAfter    the {@code Retry-After} header of the answer, or null
     * @param attempts      attempts made so far, this one included
     * @param firstAttempt  when the first attempt started
     * @param renewedFor401 whether this message already had its immediate retry after a 401
     */
    public Decision decide(int status, String retryAfter, int attempts, Instant firstAttempt, Instant now, boolean renewedFor401) {
        if (status >= 200 && status < 300) {
            return Decision.delivered();
        }
        if (status == 401 && !renewedFor401) {
            return new Decision(Action.RETRY, Duration.ZERO, "HTTP 401, token renewed");
        }
        boolean retryable = status == 0 || status == 401 || status == 408 || status == 429 || status >= 500;
        if (!retryable) {
            return new Decision(Action.DEAD_LETTER, Duration.ZERO, "HTTP " + status + " is not retryable");
        }
        Duration delay = backoff(attempts);
        Duration asked = parseRetryAfter(retryAfter, now);
        if (asked != null && asked.compareTo(delay) > 0) {
            delay = asked;
        }
        Duration elapsedAtNextAttempt = Duration.between(firstAttempt, now).plus(delay);
        if (elapsedAtNextAttempt.compareTo(maxElapsed) > 0) {
            return new Decision(Action.DEAD_LETTER, Duration.ZERO,
                    "retry budget of " + maxElapsed.toSeconds() + "s used up after " + attempts + " attempts");
        }
        return new Decision(Action.RETRY, delay, status == 0 ? "no answer" : "HTTP " + status);
    }

    /** Exponential back-off with "equal jitter": half the step fixed, half random, so retries of many lanes spread out. */
    Duration backoff(int attempts) {
        long step = initialBackoff.toMillis() << Math.min(Math.max(attempts - 1, 0), 20);
        long capped = Math.min(step, maxBackoff.toMillis());
        long half = capped / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    /** {@code Retry-After} as delta-seconds or an HTTP date; null when absent or unreadable. */
    static Duration parseRetryAfter(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim();
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(v)));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                Duration d = Duration.between(now, at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (DateTimeParseException notADate) {
                return null;
            }
        }
    }
}
