package com.liveodds.push.source.kafka;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.kafka.common.utils.Utils;
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
            // Latin-1, not UTF-8: dead-lettered as the bytes it was, never decoded leniently and pushed
            kafka.sendBytes("delivery", "53", Messages.odds("k-latin1-\u00e9", Messages.external("53", 71053))
                    .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            kafka.sendToEveryPartition("delivery", Messages.alive());

            await().atMost(Duration.ofSeconds(30)).until(() -> pushOf("k-odds") != null && pushOf("k-settle") != null
                    && service.deadLetterCount() == 1);
            assertThat(service.deadLetterEntries()).singleElement().satisfies(letter -> {
                assertThat(letter.path("reason_code").asText()).isEqualTo("not_utf8");
                assertThat(letter.path("body_encoding").asText()).isEqualTo("base64");
            });
            assertThat(partner.pushes()).noneMatch(r -> r.getBodyAsString().contains("k-latin1"));
            assertThat(pushOf("k-odds").getUrl()).isEqualTo("/partner/v1/liveodds/42/match:71051/odds");
            assertThat(pushOf("k-settle").getUrl()).isEqualTo("/partner/v1/liveodds/42/match:71052/market_settlement");
            assertThat(pushOf("k-odds").getHeaders().keys()).noneMatch(h -> h.toLowerCase().startsWith("kafka") || h.startsWith("Camel"));
            assertThat(service.management("/observe/health").statusCode()).isEqualTo(200);
            assertThat(service.kafkaPartitions("").owned()).hasSize(PARTITIONS);
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
            // finished offsets are committed as the next records come in (producers send alive every few seconds)
            kafka.sendToEveryPartition("held", Messages.alive());
            await().atMost(Duration.ofSeconds(30)).until(() -> committed("g-held", new TopicPartition("held", 0)) == 1);
        }
        // stopped while k-held was failing: its offset is still not committed
        assertThat(committed("g-held", new TopicPartition("held", 0))).isEqualTo(1);
        partner.server().removeStub(failing);
        int attemptsWhileFailing = attemptsOf("k-held");

        try (RunningService second = kafkaService("held", "g-held")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> attemptsOf("k-held") > attemptsWhileFailing);
            kafka.sendToEveryPartition("held", Messages.alive());
            await().atMost(Duration.ofSeconds(30)).until(() -> committed("g-held", new TopicPartition("held", 0)) == 3);
            assertThat(attemptsOf("k-before")).as("the delivered, committed record is not pushed again").isEqualTo(1);
        }
    }

    @Test
    void aMatchInRetryHoldsBackOnlyItsOwnRecordsAndTheCommitNeverPassesThem() throws Exception {
        String topic = "parallel";
        TopicPartition partition = new TopicPartition(topic, 0);
        kafka.createTopic(topic, 1);
        long stuckMatch = 74001;
        StubMapping failing = partner.server().stubFor(post(urlPathEqualTo("/partner/v1/liveodds/42/match:" + stuckMatch + "/odds"))
                .atPriority(1).willReturn(aResponse().withStatus(503)));
        List<Long> healthyMatches = java.util.stream.LongStream.rangeClosed(stuckMatch + 1, stuckMatch + 4).boxed().toList();
        int healthy = 30;
        // one partition: before, the record in retry held the poll thread and with it every match of the partition
        try (RunningService first = kafkaService(topic, "g-parallel")) {
            kafka.send(topic, "80", Messages.odds("k-first", Messages.external("80", healthyMatches.get(0))));
            kafka.send(topic, "81", Messages.odds("k-stuck-1", Messages.external("81", stuckMatch)));
            kafka.send(topic, "81", Messages.odds("k-stuck-2", Messages.external("81", stuckMatch)));
            for (int i = 0; i < healthy; i++) {
                long match = healthyMatches.get(i % healthyMatches.size());
                kafka.send(topic, Long.toString(match), Messages.odds("k-ok-" + i, Messages.external(Long.toString(match), match)));
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> pushesStartingWith("k-ok-") == healthy);
            await().atMost(Duration.ofSeconds(15)).until(() -> attemptsOf("k-stuck-1") >= 2);
            assertThat(attemptsOf("k-stuck-2")).as("held behind its match's record in retry").isZero();
            kafka.sendToEveryPartition(topic, Messages.alive());
            // k-first (offset 0) is committed; k-stuck-1 (offset 1) is not, so neither is anything after it
            await().atMost(Duration.ofSeconds(30)).until(() -> committed("g-parallel", partition) == 1);
            kafka.sendToEveryPartition(topic, Messages.alive());
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(() -> committed("g-parallel", partition) == 1);
            System.out.printf("Kafka: %d records of healthy matches delivered while k-stuck-1 failed %d times; committed offset"
                    + " %d of %d records%n", healthy, attemptsOf("k-stuck-1"), committed("g-parallel", partition), healthy + 5);
        }
        assertThat(committed("g-parallel", partition)).as("stopped mid-retry: still nothing past k-first").isEqualTo(1);
        partner.server().removeStub(failing);
        int healthyPushes = pushesStartingWith("k-ok-");

        try (RunningService second = kafkaService(topic, "g-parallel")) {
            await().atMost(Duration.ofSeconds(30)).until(() -> attemptsOf("k-stuck-2") == 1
                    && pushesStartingWith("k-ok-") == healthyPushes + healthy);
            List<String> stuck = partner.pushes("odds").stream().map(r -> r.getHeader("Idempotency-Key"))
                    .filter(k -> k != null && k.startsWith("k-stuck-")).toList();
            assertThat(stuck.indexOf("k-stuck-2")).as("k-stuck-2 only after k-stuck-1 got through").isEqualTo(stuck.size() - 1);
            assertThat(attemptsOf("k-first")).as("committed, so not pushed again").isEqualTo(1);
            // the alive at offset healthy + 5 commits everything before it
            kafka.sendToEveryPartition(topic, Messages.alive());
            await().atMost(Duration.ofSeconds(30)).until(() -> committed("g-parallel", partition) == healthy + 5);
            System.out.printf("Kafka after restart: k-stuck-1 and k-stuck-2 delivered in order, %d healthy records pushed"
                    + " again (finished but behind the uncommitted one), committed offset %d%n", healthy,
                    committed("g-parallel", partition));
        }
    }

    @Test
    void aRevokedPartitionsQueuedRecordsAreLeftToItsNewOwner() throws Exception {
        String topic = "moving";
        kafka.createTopic(topic, 2);
        // one failing match per partition, so whichever partition moves has a record in retry and one queued behind it
        List<String> keys = new ArrayList<>();
        for (int fight = 90; keys.size() < 2; fight++) {
            String key = Integer.toString(fight);
            if (keys.isEmpty() || partitionOf(key, 2) != partitionOf(keys.get(0), 2)) {
                keys.add(key);
            }
        }
        List<StubMapping> failing = new ArrayList<>();
        for (String key : keys) {
            failing.add(partner.server().stubFor(post(urlPathEqualTo("/partner/v1/liveodds/42/match:" + (75000 + Long.parseLong(key)) + "/odds"))
                    .atPriority(1).willReturn(aResponse().withStatus(503))));
        }
        try (RunningService first = kafkaService(topic, "g-moving")) {
            for (String key : keys) {
                kafka.send(topic, key, Messages.odds("k-move-" + key + "-1", Messages.external(key, 75000 + Long.parseLong(key))));
                kafka.send(topic, key, Messages.odds("k-move-" + key + "-2", Messages.external(key, 75000 + Long.parseLong(key))));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> keys.stream().allMatch(k -> attemptsOf("k-move-" + k + "-1") >= 2));

            try (RunningService second = kafkaService(topic, "g-moving")) {
                KafkaPartitions firstOwns = first.kafkaPartitions("");
                KafkaPartitions secondOwns = second.kafkaPartitions("");
                await().atMost(Duration.ofSeconds(40)).until(() -> firstOwns.owned().size() == 1 && secondOwns.owned().size() == 1);
                failing.forEach(partner.server()::removeStub);

                await().atMost(Duration.ofSeconds(40)).until(() -> keys.stream().allMatch(k -> attemptsOf("k-move-" + k + "-2") >= 1));
                for (String key : keys) {
                    List<String> pushes = partner.pushes("odds").stream().map(r -> r.getHeader("Idempotency-Key"))
                            .filter(k -> k != null && k.startsWith("k-move-" + key + "-")).toList();
                    assertThat(pushes.indexOf("k-move-" + key + "-2")).as("order of fight %s: %s", key, pushes)
                            .isEqualTo(pushes.size() - 1);
                }
                // the old owner neither pushed the queued record nor went on retrying: each second record went out once
                await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                        .until(() -> keys.stream().allMatch(k -> attemptsOf("k-move-" + k + "-2") == 1));
                System.out.printf("Kafka rebalance: attempts per record %s%n", keys.stream().map(k -> k + ": "
                        + attemptsOf("k-move-" + k + "-1") + "/" + attemptsOf("k-move-" + k + "-2")).toList());
            }
        }
    }

    private static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
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

    private static int pushesStartingWith(String prefix) {
        return (int) partner.pushes().stream().map(r -> r.getHeader("Idempotency-Key"))
                .filter(k -> k != null && k.startsWith(prefix)).count();
    }

    private static int attemptsOf(String messageId) {
        return (int) partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).count();
    }
}
