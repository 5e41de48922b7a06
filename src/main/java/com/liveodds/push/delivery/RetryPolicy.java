package com.liveodds.push.delivery;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import com.liveodds.push.partner.PartnerAnswer;

/**
 * What to do after a push attempt (contract sections 7 and 10), decided and never thrown: 2xx delivered; 401 renew the
 * token and retry at once, once; 408, 429, 5xx, time-outs and connection errors retry with exponential back-off and jitter, honouring
 * {@code Retry-After}, while the retry budget lasts; a 3xx (never followed) and any other status dead-letter at once.
 * <p>
 * A wait never reaches past the budget: a {@code Retry-After} (or back-off step) longer than the time left is cut to
 * it, so the last attempt happens at the budget's end instead of the message being dead-lettered early. Only an attempt
 * that fails with no budget left dead-letters.
 */
public class RetryPolicy {

    private static final int MAX_LOCATION_IN_REASON = 200;

    private volatile Duration initialBackoff;
    private volatile Duration maxBackoff;
    private volatile Duration maxElapsed;

    public RetryPolicy() {
        this(Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofMinutes(10));
    }

    public RetryPolicy(Duration initialBackoff, Duration maxBackoff, Duration maxElapsed) {
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
        this.maxElapsed = maxElapsed;
    }

    /** {@code liveodds.delivery.backoff.initial}: the first back-off, {@code 250ms} by default. */
    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = initialBackoff;
    }

    /** {@code liveodds.delivery.backoff.max}: the longest back-off (a Retry-After may ask for more), {@code 30s}. */
    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = maxBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** The retry budget of one message, {@code 10m} by default. */
    public void setMaxElapsed(Duration maxElapsed) {
        this.maxElapsed = maxElapsed;
    }

    /**
     * The verdict on an attempt. RENEW_TOKEN: a 401 tried again with a new token (at once the first time); RETRY: tried
     * again after the back-off. {@link PartnerPushes} adds SUPERSEDED (a snapshot of its match came in while it was on
     * the wire: the queue ends it, contract 17) and HELD (its partner's dead letters are full: the partner is paused
     * and the push waits at the head of its match, contract 22).
     */
    public enum Action {
        DELIVERED, RENEW_TOKEN, RETRY, SUPERSEDED, HELD, DEAD_LETTER;

        private final String verdict = name().toLowerCase(Locale.ROOT).replace('_', '-');

        /** As the push route's choice names it: {@code renew-token}, {@code dead-letter}, ... */
        public String verdict() {
            return verdict;
        }

        /** Whether the push runs again (RENEW_TOKEN, RETRY, SUPERSEDED, HELD): the queue is asked for it. */
        public boolean runsAgain() {
            return this != DELIVERED && this != DEAD_LETTER;
        }
    }

    /** @param delay how long to wait before the next attempt (zero unless it runs again) */
    public record Decision(Action action, Duration delay, String reason) {
        static Decision delivered() {
            return new Decision(Action.DELIVERED, Duration.ZERO, null);
        }
    }

    /**
     * @param answer        the attempt's outcome (status 0 when it got no answer: time-out, connection error, no token)
     * @param attempts      attempts made so far, this one included
     * @param firstAttempt  when the first attempt started
     * @param renewedFor401 whether this message already had its immediate retry after a 401
     */
    public Decision decide(PartnerAnswer answer, int attempts, Instant firstAttempt, Instant now, boolean renewedFor401) {
        int status = answer.status();
        if (answer.isSuccess()) {
            return Decision.delivered();
        }
        if (status >= 300 && status < 400) {
            return new Decision(Action.DEAD_LETTER, Duration.ZERO,
                    "HTTP " + status + " redirect to " + printable(answer.location()) + " is not followed");
        }
        if (status == 401 && !renewedFor401) {
            return new Decision(Action.RENEW_TOKEN, Duration.ZERO, "HTTP 401, token renewed");
        }
        boolean retryable = status == 0 || status == 401 || status == 408 || status == 429 || status >= 500;
        if (!retryable) {
            return new Decision(Action.DEAD_LETTER, Duration.ZERO, "HTTP " + status + " is not retryable");
        }
        Duration left = maxElapsed.minus(Duration.between(firstAttempt, now));
        if (left.isNegative() || left.isZero()) {
            return new Decision(Action.DEAD_LETTER, Duration.ZERO,
                    "retry budget of " + maxElapsed.toSeconds() + "s used up after " + attempts + " attempts");
        }
        Duration delay = backoff(attempts);
        Duration asked = parseRetryAfter(answer.retryAfter(), now);
        if (asked != null && asked.compareTo(delay) > 0) {
            delay = asked;
        }
        if (delay.compareTo(left) > 0) {
            delay = left;
        }
        // a later 401 (the renewed token refused too) waits out the back-off, and a new token is asked for again
        return new Decision(status == 401 ? Action.RENEW_TOKEN : Action.RETRY, delay, status == 0 ? "no answer" : "HTTP " + status);
    }

    /** Exponential back-off with "equal jitter": half the step fixed, half random, so retries of many matches spread out. */
    Duration backoff(int attempts) {
        long step = initialBackoff.toMillis() << Math.min(Math.max(attempts - 1, 0), 20);
        long capped = Math.min(step, maxBackoff.toMillis());
        long half = capped / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(half + 1));
    }

    /**
     * {@code Retry-After} as delta-seconds (any number of digits; too many to count is "very long") or an HTTP date
     * (one in the past is 0); null when absent or unreadable (a sign, a fraction, garbage), so the back-off applies.
     */
    static Duration parseRetryAfter(String value, Instant now) {
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.isEmpty()) {
            return null;
        }
        if (v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            // 18 digits always fit a long; more are capped by the budget anyway
            return v.length() > 18 ? Duration.ofSeconds(Long.MAX_VALUE) : Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO;
        } catch (DateTimeParseException | ArithmeticException notADate) {
            return null;
        }
    }

    /** A partner's Location in a reason that reaches logs and dead letters: one line, bounded. */
    private static String printable(String location) {
        if (location == null) {
            return "(no Location)";
        }
        StringBuilder out = new StringBuilder(Math.min(location.length(), MAX_LOCATION_IN_REASON));
        for (int i = 0; i < location.length() && out.length() < MAX_LOCATION_IN_REASON; i++) {
            char c = location.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.toString();
    }
}
