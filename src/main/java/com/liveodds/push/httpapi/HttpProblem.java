package com.liveodds.push.httpapi;

/**
 * A request our HTTP API answers with an error of its own (404, 413, 503...): thrown by a step, answered as JSON by
 * the route configuration {@code liveodds-http}. The message is the answer's, so it must never quote the request.
 */
public class HttpProblem extends RuntimeException {

    private final int status;
    private final String error;
    private final long retryAfterSeconds;

    public HttpProblem(int status, String error, String message) {
        this(status, error, message, 0);
    }

    /** @param retryAfterSeconds sent as {@code Retry-After} when above zero */
    public HttpProblem(int status, String error, String message, long retryAfterSeconds) {
        super(message, null, false, false);
        this.status = status;
        this.error = error;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public int getStatus() {
        return status;
    }

    public String getError() {
        return error;
    }

    public long getRetryAfterSeconds() {
        return retryAfterSeconds;
    }
}
