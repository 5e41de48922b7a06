package com.liveodds.push.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.apache.camel.main.Main;
import org.apache.camel.opentelemetry2.OpenTelemetryTracer;
import org.apache.camel.spi.CamelTracingService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host application that traces with camel-opentelemetry2 itself ({@code camel.opentelemetry2.enabled=true}, its
 * OpenTelemetry the JVM's global one) keeps its tracer: the bundle adds none, says so once, and the host's tracer
 * traces the bundle's routes with the host's SDK, the partner POST carrying the host's trace.
 */
class HostOwnTracerTest {

    @TempDir
    Path home;

    @Test
    void theHostsTracerTracesTheBundleAndTheBundleAddsNone() throws Exception {
        InMemorySpanExporter hostSpans = InMemorySpanExporter.create();
        OpenTelemetrySdk hostSdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(hostSpans)).build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        GlobalOpenTelemetry.set(hostSdk);
        Files.createDirectories(home.resolve("data/inbox"));
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything(); CapturedLogs logs = CapturedLogs.all()) {
            Main host = UpstreamTrace.hostWithTracedBundle(home, partner);
            host.addOverrideProperty("camel.opentelemetry2.enabled", "true");
            host.start();
            try {
                assertThat(host.getCamelContext().hasService(CamelTracingService.class).getClass()).isEqualTo(OpenTelemetryTracer.class);
                assertThat(logs.messages()).anyMatch(m -> m.startsWith("Tracing: the application's own Camel tracer"));

                RunningService.drop(home.resolve("data/inbox"), "a.json", Messages.odds("own-1", Messages.external("6", 6001)));
                await().atMost(Duration.ofSeconds(20)).until(() -> !partner.pushes().isEmpty());
                LoggedRequest push = partner.pushes().get(0);
                String traceId = push.getHeader("traceparent").split("-")[1];
                await().atMost(Duration.ofSeconds(30)).until(() -> hostSpans.getFinishedSpanItems().stream()
                        .anyMatch(s -> s.getName().equals("liveodds-ingest") && s.getTraceId().equals(traceId)));
                List<SpanData> spans = hostSpans.getFinishedSpanItems();
                assertThat(spans).noneMatch(s -> s.getAttributes().get(UpstreamTrace.MESSAGE_ID) != null);
            } finally {
                host.stop();
            }
        } finally {
            hostSdk.close();
            GlobalOpenTelemetry.resetForTest();
        }
    }
}
