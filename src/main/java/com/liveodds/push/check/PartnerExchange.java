package com.liveodds.push.check;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerClient;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerTls;

/**
 * Every HTTP exchange of the check, in one place: today over the delivery's own {@link PartnerClient} (its TLS, its
 * whole-attempt time-out, its 64 KiB read limit), so the check sees the partner exactly as delivery does. The client
 * sends two shapes of request, and so does this class: a push (POST with {@code Authorization},
 * {@code Content-Type: application/json} and {@code Idempotency-Key}) and a bare POST with a {@code Content-Type} only
 * (the token request, and a push without a token). When the partner client moves to camel-http, only
 * {@link #exchange} changes.
 */
public final class PartnerExchange implements AutoCloseable {

    private final PartnerClient client;

    public PartnerExchange(Duration timeout, PartnerTls tls) {
        // no base URL: every request names its full URL; one request at a time, the check runs them in turn
        this.client = new PartnerClient(null, timeout, 1, tls, new PartnerHealth());
    }

    /** One request and its answer, or why there was none (status 0); never throws for what the partner does. */
    public Reply exchange(Request request) {
        Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.putAll(request.headers());
        if (!"POST".equals(request.method())) {
            throw new IllegalArgumentException("the partner client sends POST only, not " + request.method());
        }
        long started = System.nanoTime();
        PartnerAnswer answer;
        if (headers.size() == 3 && headers.containsKey("Authorization") && headers.containsKey("Idempotency-Key")
                && "application/json".equals(headers.get("Content-Type"))) {
            answer = client.post(request.uri().toString(), headers.get("Authorization"), headers.get("Idempotency-Key"),
                    request.body()).join();
        } else if (headers.size() == 1 && headers.containsKey("Content-Type")) {
            answer = client.send(request.uri(), headers.get("Content-Type"), request.body(), PartnerClient.READ_LIMIT).join();
        } else {
            throw new IllegalArgumentException("the partner client sends a push or a bare POST, not headers " + headers.keySet());
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        Map<String, String> answerHeaders = new LinkedHashMap<>();
        if (answer.retryAfter() != null) {
            answerHeaders.put("Retry-After", answer.retryAfter());
        }
        if (answer.location() != null) {
            answerHeaders.put("Location", answer.location());
        }
        return new Reply(answer.status(), answerHeaders, answer.body(), answer.error(), elapsed);
    }

    @Override
    public void close() {
        client.stop();
    }

    /** What to send. */
    public record Request(String method, URI uri, Map<String, String> headers, byte[] body) {

        public static Request post(URI uri, Map<String, String> headers, String body) {
            return new Request("POST", uri, headers, body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * The answer: {@code status} 0 and an {@code error} when there was none (time-out, connection, TLS).
     *
     * @param headers the answer headers the check reads ({@code Retry-After}, {@code Location})
     * @param body    the start of the answer body as text, or null
     */
    public record Reply(int status, Map<String, String> headers, String body, String error, Duration elapsed) {

        public boolean isSuccess() {
            return status >= 200 && status < 300;
        }

        /** {@code HTTP 202}, or why there was no answer, for a report line. */
        public String describe() {
            return status == 0 ? "no answer (" + error + ")" : "HTTP " + status;
        }
    }
}
