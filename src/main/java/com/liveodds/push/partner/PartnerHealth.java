package com.liveodds.push.partner;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How one partner answers, for the readiness check {@code partner} ({@link PartnerReadiness}, contract sections 10
 * and 16): down once requests to the partner (token requests, pushes, heartbeats) have kept failing for
 * {@code liveodds.partner.down-after} with no success in between; up again at the next success. A request succeeds when the partner takes it (2xx, or a usable token); any other outcome is a failure,
 * so a partner that refuses everything (every push 404 behind a wrong base URL, 403, 429) turns it DOWN too, while
 * one 422 among accepted pushes never does. Measured from the first failure after the last success, so a single
 * failure after a quiet hour is not an outage.
 */
public class PartnerHealth implements PartnerState {

    private static final long NONE = Long.MIN_VALUE;

    private volatile long downAfterNanos = Duration.ofSeconds(30).toNanos();
    /** nanoTime of the first failure since the last success, or NONE while the last outcome was a success. */
    private final AtomicLong failingSince = new AtomicLong(NONE);
    private volatile long lastSuccessMillis = NONE;
    private volatile long lastFailureMillis = NONE;
    private volatile String lastError;

    /** {@code 30s} by default; {@code 0} turns the check off (always UP). */
    public void setDownAfter(Duration downAfter) {
        this.downAfterNanos = downAfter.toNanos();
    }

    /** The partner took a request. */
    public void succeeded() {
        lastSuccessMillis = System.currentTimeMillis();
        if (failingSince.get() != NONE) {
            failingSince.set(NONE);
        }
    }

    /** A request to the partner failed; {@code why} is for an operator and never holds a secret. */
    public void failed(String why) {
        lastFailureMillis = System.currentTimeMillis();
        lastError = why;
        if (failingSince.get() == NONE) {
            failingSince.compareAndSet(NONE, System.nanoTime());
        }
    }

    /** Reports one attempt's answer: 2xx is a success, anything else a failure. */
    public void answered(PartnerAnswer answer) {
        if (answer.isSuccess()) {
            succeeded();
        } else {
            failed(answer.status() == 0 ? answer.error() : "HTTP " + answer.status());
        }
    }

    /** How long requests to the partner have kept failing with no success in between, or null while the last succeeded. */
    public Duration failingFor() {
        long since = failingSince.get();
        return since == NONE ? null : Duration.ofNanos(System.nanoTime() - since);
    }

    /**
     * The partner is resumed after a pause (it had no attempt meanwhile): its failures are counted afresh, so the failing
     * before the pause neither turns readiness DOWN nor pauses it again at once.
     */
    public void resumed() {
        failingSince.set(NONE);
    }

    public boolean isUp() {
        long since = failingSince.get();
        return downAfterNanos == 0 || since == NONE || System.nanoTime() - since < downAfterNanos;
    }

    @Override
    public PartnerStatus partner() {
        return new PartnerStatus(isUp(), instant(lastSuccessMillis), instant(lastFailureMillis), lastError);
    }

    /** Why it is down ("nothing sent to the partner has succeeded for 31s; last error: HTTP 503"), or null while up. */
    public String downReason() {
        long since = failingSince.get();
        if (isUp() || since == NONE) {
            return null;
        }
        long failingForS = Duration.ofNanos(System.nanoTime() - since).toSeconds();
        return "nothing sent to the partner has succeeded for " + failingForS + "s; last error: " + lastError;
    }

    private static Instant instant(long millis) {
        return millis == NONE ? null : Instant.ofEpochMilli(millis);
    }
}
