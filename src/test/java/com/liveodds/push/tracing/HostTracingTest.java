package com.liveodds.push.tracing;

import static com.liveodds.push.tracing.UpstreamTrace.MESSAGE_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.liveodds.push.support.InMemoryTraces;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.apache.camel.opentelemetry2.OpenTelemetryTracer;
import org.apache.camel.spi.CamelTracingService;
import org.apache.camel.telemetry.TraceProcessorsInterceptStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle with tracing on in a host application that traces nothing itself (contract 15 and 21): the bundle's
 * messages are traced, the host's routes and exchanges get no span, its processors are not wrapped, and no
 * OpenTelemetry of the JVM (the global one) is touched.
 */
class HostTracingTest {

    private static final Queue<String> hostTicks = new ConcurrentLinkedQueue<>();
    @TempDir
    static Path home;
    private static WireMockPartner partner;
    private static Main host;

    @BeforeAll
    static void start() throws Exception {
        UpstreamTrace.exportTo(null);
        partner = new WireMockPartner().acceptingEverything();
        Files.createDirectories(home.resolve("data/inbox"));
        host = UpstreamTrace.hostWithTracedBundle(home, partner);
        host.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                from("timer:host-tick?period=100").routeId("host-tick").to("direct:host-work");
                from("direct:host-work").routeId("host-work").process(exchange -> hostTicks.add(exchange.getExchangeId()));
            }
        });
        host.start();
    }

    @AfterAll
    static void stop() {
        host.stop();
        partner.close();
        UpstreamTrace.clearExport();
    }

    @Test
    void onlyTheBundlesMessagesAreTraced() throws Exception {
        RunningService.drop(home.resolve("data/inbox"), "a.json", Messages.odds("host-t-1", Messages.external("5", 5001)));
        SpanData attempt = UpstreamTrace.attempts("host-t-1", 1).get(0);
        List<SpanData> trace = InMemoryTraces.traces().get(attempt.getTraceId());
        assertThat(trace).extracting(SpanData::getName).contains("file", "liveodds-ingest", "POST");
        await().atMost(Duration.ofSeconds(30)).until(() -> hostTicks.size() >= 10);

        // none of the host's timer or direct route: every span is of an endpoint of the bundle
        assertThat(InMemoryTraces.spans()).isNotEmpty().allSatisfy(span ->
                assertThat(span.getAttributes().asMap().toString()).doesNotContain("host-tick", "host-work"));
        assertThat(InMemoryTraces.spans()).filteredOn(s -> s.getKind() == SpanKind.CLIENT)
                .allSatisfy(client -> assertThat(client.getAttributes().get(MESSAGE_ID)).isNotNull());
        assertThat(host.getCamelContext().getCamelContextExtension().getInterceptStrategies())
                .noneMatch(TraceProcessorsInterceptStrategy.class::isInstance);
        assertThat(host.getCamelContext().hasService(CamelTracingService.class)).isInstanceOf(OpenTelemetryTracer.class);
        assertThat(io.opentelemetry.api.GlobalOpenTelemetry.isSet()).as("the JVM's global OpenTelemetry").isFalse();
    }
}
