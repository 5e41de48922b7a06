package com.liveodds.push.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.InMemoryTraces;
import com.liveodds.push.support.OtlpReceiver;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.apache.camel.main.Main;

/**
 * A trace an odds engine started upstream, as W3C trace context, and what the tests look for at the exporter and the
 * partner. The service's SDK is set up from system properties, as an operator's OTEL_* environment would.
 */
final class UpstreamTrace {

    static final String SAMPLED = "01";
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("liveodds.attempt");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("liveodds.message_id");
    static final AttributeKey<String> MATCH = AttributeKey.stringKey("liveodds.match");
    static final AttributeKey<String> MESSAGE_TYPE = AttributeKey.stringKey("liveodds.message_type");
    static final AttributeKey<String> PARTNER_ID = AttributeKey.stringKey("liveodds.partner.id");
    static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String INGEST_TOKEN = "ingest-token-1";
    private static final List<String> SDK_PROPERTIES = List.of("otel.traces.exporter", "otel.exporter.otlp.protocol",
            "otel.exporter.otlp.endpoint", "otel.bsp.schedule.delay");

    final String traceId;
    final String parentSpanId;

    UpstreamTrace(String traceId, String parentSpanId) {
        this.traceId = traceId;
        this.parentSpanId = parentSpanId;
    }

    String traceparent() {
        return "00-" + traceId + "-" + parentSpanId + "-" + SAMPLED;
    }

    /** The service's spans go to the in-memory exporter and, when a receiver is given, over OTLP/HTTP to it. */
    static void exportTo(OtlpReceiver receiver) {
        System.setProperty("otel.traces.exporter", receiver == null ? "memory" : "memory,otlp");
        System.setProperty("otel.exporter.otlp.protocol", "http/protobuf");
        System.setProperty("otel.exporter.otlp.endpoint", receiver == null ? "http://127.0.0.1:9" : receiver.endpoint());
        System.setProperty("otel.bsp.schedule.delay", "50");
    }

    static void clearExport() {
        SDK_PROPERTIES.forEach(System::clearProperty);
    }

    /** The service with the HTTP source, tracing on or off, a partner, and a collector the OTEL_* settings name. */
    record HttpSetup(OtlpReceiver collector, WireMockPartner partner, RunningService service) implements AutoCloseable {

        static HttpSetup start(boolean tracing) throws Exception {
            OtlpReceiver collector = new OtlpReceiver();
            exportTo(collector);
            WireMockPartner partner = new WireMockPartner().acceptingEverything();
            RunningService service = RunningService.builder()
                    .partner(partner.baseUrl(), partner.authUrl())
                    .set("liveodds.source", "http")
                    .set("liveodds.fixtures.auth.tokens", INGEST_TOKEN)
                    .set("liveodds.tracing.enabled", Boolean.toString(tracing))
                    .start();
            return new HttpSetup(collector, partner, service);
        }

        @Override
        public void close() {
            service.close();
            partner.close();
            collector.close();
            clearExport();
        }
    }

    /** POST /v1/ingest of one message, with the given header names and values besides the bearer token. */
    static HttpResponse<String> ingest(RunningService service, String body, String... headers) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                .header("Authorization", "Bearer " + INGEST_TOKEN).headers(headers)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A host application (camel-main) with the bundle's routes, its file source and one partner, tracing on. */
    static Main hostWithTracedBundle(Path home, WireMockPartner partner) {
        Main host = new Main();
        host.addOverrideProperty("camel.main.routes-include-pattern", "classpath:liveodds/routes/*.yaml");
        host.addOverrideProperty("camel.main.shutdown-timeout", "5");
        host.addOverrideProperty("camel.server.enabled", "true");
        host.addOverrideProperty("camel.server.host", "127.0.0.1");
        host.addOverrideProperty("camel.server.port", Integer.toString(RunningService.freePort()));
        host.addOverrideProperty("liveodds.home", home.toString());
        host.addOverrideProperty("liveodds.source.file.poll-delay", "50");
        host.addOverrideProperty("liveodds.tracing.enabled", "true");
        Map.of("liveodds.partner.id", "42", "liveodds.partner.base-url", partner.baseUrl(),
                "liveodds.partner.auth-url", partner.authUrl(), "liveodds.partner.client-id", "host",
                "liveodds.partner.client-secret", "host-secret").forEach(host::addOverrideProperty);
        return host;
    }

    /** The CLIENT spans of the message's attempts, in attempt order, once {@code attempts} of them have ended. */
    static List<SpanData> attempts(String messageId, int attempts) {
        await().atMost(Duration.ofSeconds(20)).until(() -> clientSpans(messageId).size() >= attempts);
        return clientSpans(messageId);
    }

    private static List<SpanData> clientSpans(String messageId) {
        return InMemoryTraces.spans().stream()
                .filter(s -> s.getKind() == SpanKind.CLIENT && messageId.equals(s.getAttributes().get(MESSAGE_ID)))
                .sorted(Comparator.comparing(s -> s.getAttributes().get(ATTEMPT)))
                .toList();
    }

    /** Every span of the trace, once its source span (the one without a parent here) has ended too. */
    static List<SpanData> trace(String traceId, SpanKind sourceKind) {
        await().atMost(Duration.ofSeconds(20)).until(() -> InMemoryTraces.traces().getOrDefault(traceId, List.of()).stream()
                .anyMatch(s -> s.getKind() == sourceKind));
        return InMemoryTraces.traces().get(traceId);
    }

    /** The partner's requests carrying this message id as Idempotency-Key, in arrival order. */
    static List<LoggedRequest> pushesOf(WireMockPartner partner, String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key")))
                .sorted(Comparator.comparing(LoggedRequest::getLoggedDate)).toList();
    }

    /** The W3C traceparent a request carried: version, trace id, parent span id, flags. */
    static Map<String, String> traceparentOf(LoggedRequest request) {
        String[] parts = request.getHeader("traceparent").split("-");
        assertThat(parts).hasSize(4);
        return Map.of("trace", parts[1], "parent", parts[2], "flags", parts[3]);
    }
}
