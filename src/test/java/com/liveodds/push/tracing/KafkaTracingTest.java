package com.liveodds.push.tracing;

import static com.liveodds.push.tracing.UpstreamTrace.ATTEMPT;
import static com.liveodds.push.tracing.UpstreamTrace.PARTNER_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tracing on, Kafka source, two partners (contract 21 with 16): a record with a {@code traceparent} header is read by
 * each partner's consumer group, and both readings continue the producer's trace to their partner.
 */
class KafkaTracingTest {

    private static final String TOPIC = "traced";
    private static final AttributeKey<String> PARTNER_NAME = AttributeKey.stringKey("liveodds.partner.name");
    private static EmbeddedKafka kafka;
    private static WireMockPartner partners;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        UpstreamTrace.exportTo(null);
        kafka = new EmbeddedKafka().start();
        kafka.createTopic(TOPIC, 2);
        partners = new WireMockPartner().acceptingEverything();
        service = RunningService.builder()
                .partner("a", "101", partners.baseUrl(), partners.authUrl())
                .partner("b", "102", partners.baseUrl(), partners.authUrl())
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                .set("liveodds.source.kafka.topic", TOPIC)
                .set("liveodds.source.kafka.start", "earliest")
                .set("liveodds.tracing.enabled", "true")
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partners.close();
        kafka.close();
        UpstreamTrace.clearExport();
    }

    @Test
    void aRecordIsOneTraceToEveryPartnerThatBookedIt() throws Exception {
        UpstreamTrace upstream = new UpstreamTrace("8bf92f3577b34da6a3ce929d0e0e473a", "00f067aa0ba902bb");
        kafka.send(TOPIC, "61", Messages.odds("kt-1", Messages.external("61", 61001)), Map.of("traceparent", upstream.traceparent()));

        List<SpanData> attempts = UpstreamTrace.attempts("kt-1", 2);
        assertThat(attempts).hasSize(2).allSatisfy(attempt -> {
            assertThat(attempt.getTraceId()).isEqualTo(upstream.traceId);
            assertThat(attempt.getAttributes().get(ATTEMPT)).isEqualTo(1L);
        });
        assertThat(attempts).extracting(s -> s.getAttributes().get(PARTNER_NAME)).containsExactlyInAnyOrder("a", "b");
        assertThat(attempts).extracting(s -> s.getAttributes().get(PARTNER_ID)).containsExactlyInAnyOrder("101", "102");

        // each partner's group read the record: two receipts, both below the producer's span
        await().atMost(Duration.ofSeconds(20)).until(() -> UpstreamTrace.trace(upstream.traceId, SpanKind.CONSUMER).stream()
                .filter(s -> s.getKind() == SpanKind.CONSUMER).count() == 2);
        List<SpanData> trace = UpstreamTrace.trace(upstream.traceId, SpanKind.CONSUMER);
        assertThat(trace).filteredOn(s -> s.getKind() == SpanKind.CONSUMER)
                .allSatisfy(receipt -> assertThat(receipt.getParentSpanId()).isEqualTo(upstream.parentSpanId));
        assertThat(trace).filteredOn(s -> s.getName().equals("liveodds-ingest")).hasSize(2);

        List<LoggedRequest> pushes = UpstreamTrace.pushesOf(partners, "kt-1");
        assertThat(pushes).hasSize(2);
        assertThat(pushes).extracting(p -> UpstreamTrace.traceparentOf(p).get("parent"))
                .containsExactlyInAnyOrderElementsOf(attempts.stream().map(SpanData::getSpanId).toList());
        assertThat(pushes).allSatisfy(p -> assertThat(UpstreamTrace.traceparentOf(p)).containsEntry("trace", upstream.traceId));
    }
}
