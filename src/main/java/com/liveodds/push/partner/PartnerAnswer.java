package com.liveodds.push.partner;

/**
 * The outcome of one HTTP attempt to the partner: its answer, or why there was none.
 *
 * @param status      HTTP status, or 0 when there was no answer (time-out, connection or TLS error)
 * @param retryAfter  the {@code Retry-After} header, or null
 * @param location    the {@code Location} header (a 3xx is never followed), or null
 * @param body        at most the first 4 KiB of the answer body as text (at most 64 KiB are read), or null
 * @param error       why there was no answer, in words for an operator (never a secret), or null
 * @param timedOut    whether the attempt ran into {@code liveodds.delivery.timeout}
 */
public record PartnerAnswer(int status, String retryAfter, String location, String body, String error, boolean timedOut) {

    public boolean isSuccess() {
        return status >= 200 && status < 300;
    }

    /** The {@code outcome} label of {@code liveodds_push_attempt_seconds}: 2xx, 401, 4xx, 5xx, 429, timeout or error. */
    public String outcome() {
        if (status == 0) {
            return timedOut ? "timeout" : "error";
        }
        if (status >= 200 && status < 300) {
            return "2xx";
        }
        if (status == 401 || status == 429) {
            return Integer.toString(status);
        }
        if (status >= 500) {
            return "5xx";
        }
        return status >= 400 ? "4xx" : "error";
    }
}
