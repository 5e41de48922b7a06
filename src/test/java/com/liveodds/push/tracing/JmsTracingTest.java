package com.liveodds.push.tracing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.stubbing.Scenario.STARTED;
import static com.liveodds.push.tracing.UpstreamTrace.ATTEMPT;
import static com.liveodds.push.tracing.UpstreamTrace.MATCH;
import static com.liveodds.push.tracing.UpstreamTrace.MESSAGE_TYPE;
import static com.liveodds.push.tracing.UpstreamTrace.PARTNER_ID;
import static com.liveodds.push.tracing.UpstreamTrace.STATUS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.InMemoryTraces;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tracing on, JMS source (contract 21): a message that comes with a {@code traceparent} JMS property is one trace from
 * the producer's span through the source, ingest and each attempt to the partner, who receives the trace in the
 * attempt's {@code traceparent}; a heartbeat is a trace of its own.
 */
class JmsTracingTest {

    private static final String QUEUE = "liveodds.upstream";
    private static EmbeddedArtemis broker;
    private static WireMockPartner partner;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        UpstreamTrace.exportTo(null);
        broker = new EmbeddedArtemis().start();
        partner = new WireMockPartner().acceptingEverything();
        service = RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.source", "jms")
                .set("liveodds.source.jms.url", broker.url())
                .set("liveodds.tracing.enabled", "true")
                .set("liveodds.heartbeat.interval", "300ms")
                .set("liveodds.delivery.backoff.initial", "50ms")
                .start();
    }

    @AfterAll
    static void stop() throws Exception {
        service.close();
        partner.close();
        broker.close();
        UpstreamTrace.clearExport();
    }

    @Test
    void aMessageIsOneTraceFromTheProducerToThePartnerWithASpanPerAttempt() throws Exception {
        UpstreamTrace upstream = new UpstreamTrace("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7");
        // the partner fails the first attempt, takes the second
        String path = "/partner/v1/liveodds/42/match:71001/odds";
        partner.server().stubFor(post(urlPathEqualTo(path)).atPriority(1).inScenario("retry").whenScenarioStateIs(STARTED)
                .willReturn(aResponse().withStatus(503)).willSetStateTo("failed once"));
        partner.server().stubFor(post(urlPathEqualTo(path)).atPriority(1).inScenario("retry").whenScenarioStateIs("failed once")
                .willReturn(aResponse().withStatus(202)));

        broker.send(QUEUE, List.of(Outgoing.text("71", Messages.odds("jt-1", Messages.external("71", 71001)))),
                Map.of("traceparent", upstream.traceparent(), "tracestate", "engine=7"));

        List<SpanData> attempts = UpstreamTrace.attempts("jt-1", 2);
        assertThat(attempts).extracting(s -> s.getAttributes().get(ATTEMPT)).containsExactly(1L, 2L);
        assertThat(attempts).extracting(s -> s.getAttributes().get(STATUS)).containsExactly(503L, 202L);
        assertThat(attempts).allSatisfy(attempt -> {
            assertThat(attempt.getTraceId()).isEqualTo(upstream.traceId);
            assertThat(attempt.getAttributes().get(MATCH)).isEqualTo("match:71001");
            assertThat(attempt.getAttributes().get(MESSAGE_TYPE)).isEqualTo("odds");
            assertThat(attempt.getAttributes().get(PARTNER_ID)).isEqualTo("42");
        });

        // the source's receipt continues the producer's span; ingest and the attempts hang below it
        List<SpanData> trace = UpstreamTrace.trace(upstream.traceId, SpanKind.CONSUMER);
        SpanData receipt = trace.stream().filter(s -> s.getKind() == SpanKind.CONSUMER).findFirst().orElseThrow();
        assertThat(receipt.getParentSpanId()).isEqualTo(upstream.parentSpanId);
        assertThat(receipt.getSpanContext().getTraceState().get("engine")).isEqualTo("7");
        assertThat(trace).extracting(SpanData::getName).contains("liveodds-ingest", "liveoddsQueue");
        assertThat(trace).filteredOn(s -> s.getKind() == SpanKind.CLIENT).hasSize(2);

        // each request carries its own attempt's span as parent, in the producer's trace, with the producer's state
        List<LoggedRequest> requests = UpstreamTrace.pushesOf(partner, "jt-1");
        assertThat(requests).hasSize(2);
        for (int i = 0; i < 2; i++) {
            Map<String, String> traceparent = UpstreamTrace.traceparentOf(requests.get(i));
            assertThat(traceparent).containsEntry("trace", upstream.traceId)
                    .containsEntry("parent", attempts.get(i).getSpanId()).containsEntry("flags", "01");
            assertThat(requests.get(i).getHeader("tracestate")).isEqualTo("engine=7");
            assertThat(requests.get(i).getHeaders().keys()).noneMatch(h -> h.equalsIgnoreCase("baggage"));
        }
    }

    @Test
    void aHeartbeatIsATraceOfItsOwn() throws Exception {
        UpstreamTrace upstream = new UpstreamTrace("5bf92f3577b34da6a3ce929d0e0e4737", "00f067aa0ba902b8");
        broker.send(QUEUE, List.of(Outgoing.text("72", Messages.odds("jt-2", Messages.external("72", 72001)))),
                Map.of("traceparent", upstream.traceparent()));
        UpstreamTrace.attempts("jt-2", 1);

        await().atMost(Duration.ofSeconds(30)).until(() -> heartbeats().size() >= 2);
        List<SpanData> heartbeats = heartbeats();
        assertThat(heartbeats).extracting(SpanData::getTraceId).doesNotHaveDuplicates().doesNotContain(upstream.traceId);
        // the request's span ends before the push route's that holds it: wait for that one too
        await().atMost(Duration.ofSeconds(30)).until(() -> heartbeats.stream().allMatch(heartbeat ->
                InMemoryTraces.traces().get(heartbeat.getTraceId()).stream().anyMatch(s -> !s.getParentSpanContext().isValid())));
        for (SpanData heartbeat : heartbeats) {
            List<SpanData> trace = InMemoryTraces.traces().get(heartbeat.getTraceId());
            assertThat(trace).filteredOn(s -> !s.getParentSpanContext().isValid())
                    .extracting(SpanData::getName).containsExactly("liveoddsQueue");
        }
        // the partner got each heartbeat's own trace
        List<String> sent = partner.pushes("heartbeat").stream()
                .filter(r -> r.getUrl().contains("match:72001")).map(r -> UpstreamTrace.traceparentOf(r).get("trace")).toList();
        assertThat(sent).contains(heartbeats.get(0).getTraceId(), heartbeats.get(1).getTraceId());
    }

    private static List<SpanData> heartbeats() {
        return InMemoryTraces.spans().stream().filter(s -> s.getKind() == SpanKind.CLIENT
                && "heartbeat".equals(s.getAttributes().get(MESSAGE_TYPE)) && "match:72001".equals(s.getAttributes().get(MATCH)))
                .toList();
    }
}
