package com.liveodds.push.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.Messages;
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

    private static UpstreamTrace.HttpSetup setup;

    @BeforeAll
    static void start() throws Exception {
        setup = UpstreamTrace.HttpSetup.start(false);
    }

    @AfterAll
    static void stop() {
        setup.close();
    }

    @Test
    void theUpstreamTraceGoesNoFurtherAndNothingIsExported() throws Exception {
        UpstreamTrace upstream = new UpstreamTrace("7bf92f3577b34da6a3ce929d0e0e4739", "00f067aa0ba902ba");
        HttpResponse<String> answer = UpstreamTrace.ingest(setup.service(), Messages.odds("off-1", Messages.external("91", 91001)),
                "traceparent", upstream.traceparent(), "tracestate", "engine=9", "baggage", "user=1");
        assertThat(answer.statusCode()).isEqualTo(202);

        LoggedRequest push = UpstreamTrace.pushesOf(setup.partner(), "off-1").get(0);
        Set<String> headers = push.getHeaders().keys().stream().map(String::toLowerCase).collect(Collectors.toSet());
        // section 4's headers, and the transport's own
        assertThat(headers).containsAll(Set.of("authorization", "content-type", "idempotency-key"))
                .isSubsetOf(Set.of("authorization", "content-type", "idempotency-key", "host", "content-length",
                        "connection", "user-agent", "accept-encoding"));
        assertThat(push.getBodyAsString()).doesNotContain(upstream.traceId);

        assertThat(setup.service().context().hasService(CamelTracingService.class)).isNull();
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> setup.collector().requests().isEmpty());
    }
}
