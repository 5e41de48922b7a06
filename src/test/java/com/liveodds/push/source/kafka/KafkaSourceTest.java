package com.liveodds.push.source.kafka;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Kafka source of one instance against an in-process KRaft broker, pushing to a WireMock partner. */
class KafkaSourceTest {

    private static final int PARTITIONS = 3;
    private static EmbeddedKafka kafka;
    private static WireMockPartner partner;

    @BeforeAll
    static void start() throws Exception {
        kafka = new EmbeddedKafka().start();
        partner = new WireMockPartner().acceptingEverything();
    }

    @AfterAll
    static void stop() {
        partner.close();
        kafka.close();
    }

    static RunningService kafkaService(String topic, String group) {
        return RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                .set("liveodds.source.kafka.topic", topic)
                .set("liveodds.source.kafka.group", group)
                .set("liveodds.source.kafka.start", "earliest")
                .start();
    }

    @Test
    void recordsArePushedWithoutKafkaHeadersAndReadinessFollowsTheAssignment() throws Exception {
        kafka.createTopic("delivery", PARTITIONS);
        try (RunningService service = kafkaService("delivery", "g-delivery")) {
            kafka.send("delivery", "51", Messages.odds("k-odds", Messages.external("51", 71051)));
            kafka.send("delivery", "52", Messages.message("market_settlement", "k-settle", Messages.external("52", 71052)));
            kafka.sendToEveryPartition("delivery", Messages.alive());

            await().atMost(Duration.ofSeconds(30)).until(() -> pushOf("k-odds") != null && pushOf("k-settle") != null);
            assertThat(pushOf("k-odds").getUrl()).isEqualTo("/partner/v1/liveodds/42/match:71051/odds");
            assertThat(pushOf("k-settle").getUrl()).isEqualTo("/partner/v1/liveodds/42/match:71052/market_settlement");
            assertThat(pushOf("k-odds").getHeaders().keys()).noneMatch(h -> h.toLowerCase().startsWith("kafka") || h.startsWith("Camel"));
            assertThat(service.management("/observe/health").statusCode()).isEqualTo(200);
            assertThat(service.bean("subscribeAdapter", KafkaPartitions.class).owned()).hasSize(PARTITIONS);
        }
    }

    @Test
    void anOffsetIsCommittedOnlyAfterDeliverySoAStopWhileThePartnerFailsLosesNothing() throws Exception {
        kafka.createTopic("held", 1);
        StubMapping failing = partner.server().stubFor(post(urlPathEqualTo("/partner/v1/liveodds/42/match:72002/odds"))
                .atPriority(1).willReturn(aResponse().withStatus(503)));
        try (RunningService first = kafkaService("held", "g-held")) {
            kafka.send("held", "61", Messages.odds("k-before", Messages.external("61", 72001)));
            kafka.send("held", "62", Messages.odds("k-held", Messages.external("62", 72002)));
            await().atMost(Duration.ofSeconds(30)).until(() -> attemptsOf("k-held") >= 3);
            assertThat(attemptsOf("k-before")).isEqualTo(1);
            assertThat(committed("g-held", new TopicPartition("held", 0))).isEqualTo(1);
        }
        // stopped while k-held was failing: its offset is still not committed
        assertThat(committed("g-held", new TopicPartition("held", 0))).isEqualTo(1);
        partner.server().removeStub(failing);
        int attemptsWhileFailing = attemptsOf("k-held");

        try (RunningService second = kafkaService("held", "g-held")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> attemptsOf("k-held") > attemptsWhileFailing);
            await().atMost(Duration.ofSeconds(10)).until(() -> committed("g-held", new TopicPartition("held", 0)) == 2);
            assertThat(attemptsOf("k-before")).as("the delivered, committed record is not pushed again").isEqualTo(1);
        }
    }

    @Test
    void readinessNamesTheSourceWhenTheBrokerGoesAway() throws Exception {
        EmbeddedKafka own = new EmbeddedKafka().start();
        own.createTopic("gone", 1);
        try (RunningService service = RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", own.bootstrap())
                .set("liveodds.source.kafka.topic", "gone")
                .start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> service.management("/observe/health").statusCode() == 200);
            own.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> service.management("/observe/health").statusCode() == 503);
            assertThat(service.management("/observe/health").body()).contains("\"name\":\"source\",\"status\":\"DOWN\"")
                    .contains("kafka source cannot receive: broker unreachable");
        }
    }

    private static long committed(String group, TopicPartition partition) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrap()))) {
            OffsetAndMetadata offset = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(partition);
            return offset == null ? -1 : offset.offset();
        }
    }


    private static LoggedRequest pushOf(String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).findFirst().orElse(null);
    }

    private static int attemptsOf(String messageId) {
        return (int) partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).count();
    }
}
