package com.liveodds.push.source.http;

import java.time.Duration;
import java.util.concurrent.Semaphore;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.DeliveryState;
import com.liveodds.push.settings.Durations;

/**
 * The rules of the HTTP source ({@code POST /v1/ingest}) that are its own: the body size limit (applied by
 * {@link IngestGate} before the body is read when its size is declared, by the route after it when not), and a bound on
 * requests waiting for their delivery. A caller holds its connection until its message is delivered or
 * dead-lettered, and each waiting request holds a server worker thread; past the bound the caller is told to come
 * back later instead of queueing without end.
 */
public class HttpSource {

    private final ObjectMapper mapper = new ObjectMapper();
    private long maxBodyBytes = 1024L * 1024L;
    private Semaphore inFlight = new Semaphore(16);
    private Duration retryAfter = Duration.ofSeconds(1);

    /** {@code 1MB} by default; KB and MB are 1024 and 1024². */
    public void setMaxBody(String maxBody) {
        this.maxBodyBytes = Durations.parseBytes(maxBody);
    }

    /** Requests that may wait for their delivery at the same time. */
    public void setMaxInFlight(int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("liveodds.source.http.max-in-flight must be at least 1, not " + maxInFlight);
        }
        this.inFlight = new Semaphore(maxInFlight);
    }

    /** What a caller turned away as busy is told to wait (whole seconds, at least one). */
    public void setRetryAfter(String retryAfter) {
        this.retryAfter = Durations.parse(retryAfter);
    }

    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    public boolean isOversized(byte[] body) {
        return body != null && body.length > maxBodyBytes;
    }

    /** @return false when the bound is reached; a true must be followed by exactly one {@link #release()} */
    public boolean admit() {
        return inFlight.tryAcquire();
    }

    public void release() {
        inFlight.release();
    }

    public long retryAfterSeconds() {
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }

    /** The 202 body: the message id and what became of it ({@code received} for {@code alive}). */
    public String receipt(String messageId, DeliveryState delivery) {
        ObjectNode body = mapper.createObjectNode();
        body.put("message_id", messageId);
        body.put("status", delivery == null ? "received" : delivery.getOutcome());
        if (delivery != null) {
            body.put("match_id", delivery.getPush().matchId());
        }
        return body.toString();
    }
}
