package com.liveodds.push.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.OtlpReceiver;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.apache.camel.spi.CamelTracingService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tracing off (the default), with the OTEL_* settings of a collector present all the same: the upstream
 * {@code traceparent} goes no further, the partner gets the contract's headers and nothing else, and nothing
 * connects to the collector.
 */
class TracingOffTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static OtlpReceiver collector;
    private static WireMockPartner partner;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        collector = new OtlpReceiver();
        UpstreamTrace.exportTo(collector);
        partner = new WireMockPartner().acceptingEverything();
        service = RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.source", "http")
                .set("liveodds.fixtures.auth.tokens", "ingest-token-1")
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partner.close();
        collector.close();
        UpstreamTrace.clearExport();
    }

    @Test
    void theUpstreamTraceGoesNoFurtherAndNothingIsExported() throws Exception {
        UpstreamTrace upstream = new UpstreamTrace("7bf92f3577b34da6a3ce929d0e0e4739", "00f067aa0ba902ba");
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                .header("Authorization", "Bearer ingest-token-1").header("traceparent", upstream.traceparent())
                .header("tracestate", "engine=9").header("baggage", "user=1")
                .POST(HttpRequest.BodyPublishers.ofString(Messages.odds("off-1", Messages.external("91", 91001)))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(202);

        LoggedRequest push = UpstreamTrace.pushesOf(partner, "off-1").get(0);
        Set<String> headers = push.getHeaders().keys().stream().map(String::toLowerCase).collect(Collectors.toSet());
        // section 4's headers, and the transport's own
        assertThat(headers).containsAll(Set.of("authorization", "content-type", "idempotency-key"))
                .isSubsetOf(Set.of("authorization", "content-type", "idempotency-key", "host", "content-length",
                        "connection", "user-agent", "accept-encoding"));
        assertThat(push.getBodyAsString()).doesNotContain(upstream.traceId);

        assertThat(service.context().hasService(CamelTracingService.class)).isNull();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> collector.requests().isEmpty());
    }
}
