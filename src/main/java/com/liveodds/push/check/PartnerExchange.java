package com.liveodds.push.check;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.partner.PartnerRequests;
import com.liveodds.push.partner.PartnerTls;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * Every HTTP exchange of the check, in one place: over the delivery's own camel-http component
 * ({@value PartnerRequests#COMPONENT}: its TLS, its whole-attempt time-out, its 64 KiB read limit, no retry, no
 * redirect), in a CamelContext of the check's own, so the check sees the partner exactly as delivery does.
 */
public final class PartnerExchange implements AutoCloseable {

    private final PartnerHttp http;
    private final DefaultCamelContext context = new DefaultCamelContext();
    private final PartnerRequests requests;

    public PartnerExchange(Duration timeout, PartnerTls tls) {
        // one request at a time: the check runs them in turn
        this.http = new PartnerHttp(tls, timeout, 1);
        context.addComponent(PartnerRequests.COMPONENT, http.component());
        context.start();
        this.requests = new PartnerRequests(context);
    }

    /** The context whose {@value PartnerRequests#COMPONENT} the delivery's token code uses too. */
    public CamelContext context() {
        return context;
    }

    /** One request and its answer, or why there was none (status 0); never throws for what the partner does. */
    public Reply exchange(Request request) {
        long started = System.nanoTime();
        PartnerAnswer answer = requests.send(request.method(), request.uri().toString(), request.headers(), request.body());
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
        try {
            requests.close();
            context.stop();
        } finally {
            http.stop();
        }
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
