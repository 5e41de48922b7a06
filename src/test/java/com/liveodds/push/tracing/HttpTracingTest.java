package com.liveodds.push.tracing;

import static com.liveodds.push.tracing.UpstreamTrace.ATTEMPT;
import static com.liveodds.push.tracing.UpstreamTrace.MATCH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.InMemoryTraces;
import com.liveodds.push.support.Messages;
import com.google.protobuf.ByteString;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tracing on, HTTP source (contract 21): a POST /v1/ingest with a {@code traceparent} header is one trace through the
 * bundle, exported over OTLP/HTTP to a receiver on loopback (as a collector would get it) and continued to the partner.
 */
class HttpTracingTest {

    private static UpstreamTrace.HttpSetup setup;

    @BeforeAll
    static void start() throws Exception {
        setup = UpstreamTrace.HttpSetup.start(true);
    }

    @AfterAll
    static void stop() {
        setup.close();
    }

    @Test
    void anIngestedMessageIsOneTraceAtTheCollectorAndAtThePartner() throws Exception {
        UpstreamTrace upstream = new UpstreamTrace("6bf92f3577b34da6a3ce929d0e0e4738", "00f067aa0ba902b9");
        HttpResponse<String> answer = UpstreamTrace.ingest(setup.service(), Messages.odds("ht-1", Messages.external("81", 81001)),
                "traceparent", upstream.traceparent(), "tracestate", "engine=9");
        assertThat(answer.statusCode()).isEqualTo(202);

        SpanData attempt = UpstreamTrace.attempts("ht-1", 1).get(0);
        assertThat(attempt.getTraceId()).isEqualTo(upstream.traceId);
        assertThat(attempt.getAttributes().get(ATTEMPT)).isEqualTo(1L);
        List<SpanData> trace = UpstreamTrace.trace(upstream.traceId, SpanKind.SERVER);
        SpanData receipt = trace.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
        assertThat(receipt.getParentSpanId()).isEqualTo(upstream.parentSpanId);
        assertThat(trace).extracting(SpanData::getName).contains("liveodds-ingest");
        // a span per stage, each inside the one before: the request served, ingest (validation and dispatch in it),
        // the push's turn in the partner's queue, the request to the partner; no span of a hop between routes
        await().atMost(Duration.ofSeconds(20)).until(() -> InMemoryTraces.traces().get(upstream.traceId).size() >= 4);
        List<SpanData> stages = InMemoryTraces.traces().get(upstream.traceId);
        assertThat(stages).extracting(SpanData::getName, SpanData::getKind).containsExactlyInAnyOrder(
                tuple("POST", SpanKind.SERVER), tuple("liveodds-ingest", SpanKind.INTERNAL),
                tuple("liveoddsQueue", SpanKind.INTERNAL), tuple("POST", SpanKind.CLIENT));
        Map<String, String> parentOf = stages.stream().collect(Collectors.toMap(SpanData::getName,
                SpanData::getParentSpanId, (a, b) -> a));
        Map<String, String> spanOf = stages.stream().filter(s -> s.getKind() != SpanKind.CLIENT)
                .collect(Collectors.toMap(SpanData::getName, SpanData::getSpanId));
        assertThat(parentOf.get("liveodds-ingest")).isEqualTo(spanOf.get("POST"));
        assertThat(parentOf.get("liveoddsQueue")).isEqualTo(spanOf.get("liveodds-ingest"));
        assertThat(attempt.getParentSpanId()).isEqualTo(spanOf.get("liveoddsQueue"));

        LoggedRequest push = UpstreamTrace.pushesOf(setup.partner(), "ht-1").get(0);
        assertThat(UpstreamTrace.traceparentOf(push)).containsEntry("trace", upstream.traceId)
                .containsEntry("parent", attempt.getSpanId());
        assertThat(push.getHeader("tracestate")).isEqualTo("engine=9");

        // the same spans reached the collector over OTLP: the receipt, ingest and the CLIENT attempt with its attributes
        ByteString traceId = ByteString.fromHex(upstream.traceId);
        await().atMost(Duration.ofSeconds(20)).until(() -> setup.collector().spans().stream()
                .filter(s -> s.getTraceId().equals(traceId)).count() >= trace.size());
        List<Span> exported = setup.collector().spans().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
        assertThat(exported).extracting(Span::getName).contains("liveodds-ingest");
        Span client = exported.stream().filter(s -> s.getKind() == Span.SpanKind.SPAN_KIND_CLIENT).findFirst().orElseThrow();
        assertThat(client.getSpanId()).isEqualTo(ByteString.fromHex(attempt.getSpanId()));
        Map<String, String> attributes = new HashMap<>();
        for (KeyValue kv : client.getAttributesList()) {
            attributes.put(kv.getKey(), kv.getValue().hasIntValue() ? Long.toString(kv.getValue().getIntValue()) : kv.getValue().getStringValue());
        }
        assertThat(attributes).containsEntry("liveodds.partner.id", "42").containsEntry("liveodds.match", "match:81001")
                .containsEntry("liveodds.message_type", "odds").containsEntry("liveodds.attempt", "1")
                .containsEntry("http.response.status_code", "202");
        assertThat(exported).anyMatch(s -> s.getKind() == Span.SpanKind.SPAN_KIND_SERVER
                && s.getParentSpanId().equals(ByteString.fromHex(upstream.parentSpanId)));
        assertThat(attempt.getAttributes().get(MATCH)).isEqualTo("match:81001");
    }

    @Test
    void aMalformedOrOversizedTraceFromUpstreamIsNotPassedOn() throws Exception {
        // not W3C: the message is delivered in a trace of its own, and the partner gets that trace, not the garbage
        assertThat(UpstreamTrace.ingest(setup.service(), Messages.odds("ht-bad", Messages.external("82", 82001)),
                "traceparent", "00-ZZZ-not-hex-01", "tracestate", "a=1").statusCode()).isEqualTo(202);
        SpanData own = UpstreamTrace.attempts("ht-bad", 1).get(0);
        LoggedRequest push = UpstreamTrace.pushesOf(setup.partner(), "ht-bad").get(0);
        assertThat(UpstreamTrace.traceparentOf(push)).containsEntry("trace", own.getTraceId())
                .containsEntry("parent", own.getSpanId());
        assertThat(push.getHeader("traceparent")).doesNotContain("ZZZ");
        assertThat(push.containsHeader("tracestate")).isFalse();

        // a valid trace with a tracestate past W3C's 32 members: the trace goes on, the state does not
        UpstreamTrace upstream = new UpstreamTrace("9bf92f3577b34da6a3ce929d0e0e473b", "00f067aa0ba902bc");
        String hugeState = IntStream.range(0, 200).mapToObj(i -> "k" + i + "=v" + i)
                .collect(Collectors.joining(","));
        assertThat(UpstreamTrace.ingest(setup.service(), Messages.odds("ht-huge", Messages.external("83", 83001)),
                "traceparent", upstream.traceparent(), "tracestate", hugeState).statusCode()).isEqualTo(202);
        LoggedRequest continued = UpstreamTrace.pushesOf(setup.partner(), "ht-huge").get(0);
        assertThat(UpstreamTrace.traceparentOf(continued)).containsEntry("trace", upstream.traceId);
        assertThat(continued.containsHeader("tracestate")).isFalse();
    }
}
