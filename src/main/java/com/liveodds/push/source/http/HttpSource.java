package com.liveodds.push.source.http;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.PushOutcome;
import com.liveodds.push.httpapi.HttpProblem;
import com.liveodds.push.ingest.RejectedMessageException;
import com.liveodds.push.ingest.UpstreamMessage;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * The rules of the HTTP source ({@code POST /v1/ingest}) that are its own: the body size limit (applied by
 * {@link IngestGate} before the body is read when its size is declared, by the route after it when not), and a bound on
 * requests waiting for their delivery. A caller holds its connection until its message is delivered or
 * dead-lettered, and each waiting request holds a server worker thread; past the bound the caller is told to come
 * back later instead of queueing without end.
 */
public class HttpSource {

    /** Outcomes from best to worst, for the overall status of a message several partners got. */
    private static final List<String> RANK = List.of("not_booked", "delivered", "superseded", "dead_lettered");

    private final ObjectMapper mapper = new ObjectMapper();
    private long maxBodyBytes = 1024L * 1024L;
    private Semaphore inFlight = new Semaphore(16);
    private Duration retryAfter = Duration.ofSeconds(1);

    /** In bytes ({@code liveodds.source.http.max-body}, {@code 1MB} by default, read by the settings). */
    public void setMaxBody(long maxBodyBytes) {
        this.maxBodyBytes = maxBodyBytes;
    }

    /** Requests that may wait for their delivery at the same time. */
    public void setMaxInFlight(int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("liveodds.source.http.max-in-flight must be at least 1, not " + maxInFlight);
        }
        this.inFlight = new Semaphore(maxInFlight);
    }

    /** What a caller turned away as busy is told to wait (whole seconds, at least one). */
    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    public boolean isOversized(byte[] body) {
        return body != null && body.length > maxBodyBytes;
    }

    /**
     * The body as sent, whatever its Content-Type; 413 above max-body. {@link IngestGate} answered a declared
     * Content-Length before the body was read: this catches a chunked one.
     */
    public byte[] body(Exchange exchange) {
        byte[] body = exchange.getMessage().getBody(byte[].class);
        if (isOversized(body)) {
            throw new HttpProblem(413, "payload_too_large", "the message is larger than liveodds.source.http.max-body");
        }
        return body;
    }

    /** @return false when the bound is reached; a true must be followed by exactly one {@link #release()} */
    public boolean admit() {
        return inFlight.tryAcquire();
    }

    /**
     * A waiting slot for this request until its answer is sent, or 503 + Retry-After when every slot is taken.
     * The slot is given back when the exchange completes, whatever became of it.
     */
    public void admit(Exchange exchange) {
        if (!admit()) {
            throw new HttpProblem(503, "unavailable", "every delivery slot is taken; retry later", retryAfterSeconds());
        }
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                release();
            }
        });
    }

    public void release() {
        inFlight.release();
    }

    public long retryAfterSeconds() {
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }

    /**
     * The 202 body once direct:liveodds-ingest is done with the message: delivered or dead-lettered (the delivery
     * variable), or alive (received). A rejection reaches the caller instead of the dead-letter store: it is thrown
     * again here, for its 400.
     */
    public String receipt(Exchange exchange) {
        if (exchange.getProperty(Exchange.EXCEPTION_CAUGHT) instanceof RejectedMessageException rejected) {
            throw rejected;
        }
        Map<String, PushOutcome> partners = PushOutcome.byPartner(exchange);
        if (partners != null) {
            return receipt(partners);
        }
        PushOutcome delivery = PushOutcome.of(exchange);
        return delivery != null ? receipt(delivery.push().messageId(), delivery)
                : receipt(exchange.getMessage().getBody(UpstreamMessage.class).messageId(), null);
    }

    /**
     * Several partners (contract 16): the message id, its match, and each partner's outcome by name ({@code delivered},
     * {@code superseded}, {@code dead_lettered}, {@code not_booked}); {@code status} is the least
     * good of them ({@code dead_lettered} before {@code superseded} before {@code delivered}), or {@code not_booked}
     * when no partner booked the match.
     */
    private String receipt(Map<String, PushOutcome> partners) {
        PushOutcome any = partners.values().iterator().next();
        ObjectNode body = mapper.createObjectNode();
        body.put("message_id", any.push().messageId());
        body.put("match_id", any.push().matchId());
        ObjectNode each = mapper.createObjectNode();
        String status = "not_booked";
        for (Map.Entry<String, PushOutcome> partner : partners.entrySet()) {
            PushOutcome outcome = partner.getValue();
            // the outcome only: a reason can quote what a partner answered, which is not the producer's to read
            each.put(partner.getKey(), outcome.outcome());
            if (RANK.indexOf(outcome.outcome()) > RANK.indexOf(status)) {
                status = outcome.outcome();
            }
        }
        body.put("status", status);
        body.set("partners", each);
        return body.toString();
    }

    /** The 202 body: the message id and what became of it ({@code received} for {@code alive}). */
    public String receipt(String messageId, PushOutcome delivery) {
        ObjectNode body = mapper.createObjectNode();
        body.put("message_id", messageId);
        body.put("status", delivery == null ? "received" : delivery.outcome());
        if (delivery != null) {
            body.put("match_id", delivery.push().matchId());
        }
        return body.toString();
    }
}
