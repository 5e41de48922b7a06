package com.liveodds.push.recovery.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.recovery.RetainedMessages;
import com.liveodds.push.source.kafka.KafkaPartitions;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract 20, scale-out: two instances in one consumer group on one Kafka, the topic's partitions split between
 * them, one partner on loopback, each match with a history delivered live by the instance that owns its partition. A
 * recovery asked of instance A for a match on a partition B owns is pushed by B, from B's own delivery, in upstream
 * order with the original Idempotency-Keys, and not by A, and A (and B) tell it complete; a match on A's partition is
 * pushed by A. Garbage on the control topic is passed over, logged without its content, and stops nothing. A request
 * accepted while no instance owns the partition is pushed by the instance that is assigned it later. In order: each
 * test goes on from the state the one before left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RecoveryScaleOutTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String TOPIC = "upstream-so";
    private static final String GROUP = "g-recovery";
    private static final String CONTROL = TOPIC + "." + GROUP + ".recovery";
    private static final String ROUTE = "liveodds-source-kafka";
    private static final int PARTITIONS = 4;
    private static final String TOKEN = "so-token";
    private static final Duration LONG = Duration.ofSeconds(60);
    /** What a producer with write access to the control topic could put there by mistake or on purpose. */
    private static final List<String> GARBAGE = List.of(
            "not json {",
            "[]",
            "{\"kind\":\"unknown\"}",
            "{\"kind\":\"request\",\"request_id\":\"g1\"}",
            "{\"kind\":\"request\",\"request_id\":\"g2\",\"partner_id\":\"999\",\"matches\":[\"match:1\"],\"after\":null,"
                    + "\"messages\":1,\"asked_at\":\"2026-01-01T00:00:00Z\",\"parts\":{\"0\":[\"match:1\"]}}",
            "{\"kind\":\"request\",\"request_id\":\"g3\",\"partner_id\":\"42\",\"matches\":[\"match:../../x\"],\"after\":null,"
                    + "\"messages\":1,\"asked_at\":\"2026-01-01T00:00:00Z\",\"parts\":{}}",
            "{\"kind\":\"request\",\"request_id\":\"g4\",\"partner_id\":\"42\",\"matches\":[],\"after\":null,"
                    + "\"messages\":-1,\"asked_at\":\"2026-01-01T00:00:00Z\",\"parts\":{\"-1\":[]}}",
            "{\"kind\":\"progress\",\"request_id\":\"g5\",\"partner_id\":\"42\",\"part\":\"0\",\"state\":\"exploded\","
                    + "\"delivered\":1,\"refused\":0,\"superseded\":0,\"ended_at\":null,\"error\":null}");

    @TempDir
    static Path work;
    private static EmbeddedKafka kafka;
    private static LoopbackPartner partner;
    private static CapturedLogs logs;
    private static RunningService a;
    private static RunningService b;
    private static KafkaPartitions ofA;
    private static KafkaPartitions ofB;
    private static String fightOfA;
    private static String fightOfB;
    private static List<String> historyOfA;
    private static List<String> historyOfB;

    @BeforeAll
    static void start() throws Exception {
        kafka = new EmbeddedKafka().start();
        partner = new LoopbackPartner();
        logs = CapturedLogs.of(ControlTopic.class);
        kafka.createTopic(TOPIC, PARTITIONS);
        b = instance("b");
        ofB = b.kafkaPartitions("");
        await().atMost(LONG).until(() -> ofB.owned().size() == PARTITIONS);
        a = instance("a");
        ofA = a.kafkaPartitions("");
        await().atMost(LONG).until(() -> ofA.owned().size() == PARTITIONS / 2 && ofB.owned().size() == PARTITIONS / 2);

        // each match's history, delivered live by the instance that owns its partition
        fightOfB = fightOn(ofB.owned());
        fightOfA = fightOn(ofA.owned());
        historyOfB = history(fightOfB);
        historyOfA = history(fightOfA);
        await().atMost(LONG).until(() -> ids(partner.arrivals()).containsAll(historyOfB)
                && ids(partner.arrivals()).containsAll(historyOfA));
    }

    @AfterAll
    static void stop() {
        a.close();
        b.close();
        logs.close();
        partner.close();
        kafka.close();
    }

    @Test
    @Order(1)
    void aRecoveryAskedOfAIsPushedByTheOwnerOfTheMatchsPartitionAndAnyInstanceTellsItComplete() throws Exception {
        // every instance keeps the whole topic, so A counts what B's match has
        RetainedMessages storeOfA = a.bean("liveoddsRetainedMessages", RetainedMessages.class);
        await().atMost(LONG).until(() -> storeOfA.count(new RetainedMessages.Selection(match(fightOfB), null,
                Long.MAX_VALUE)) == historyOfB.size());

        int seen = partner.arrivals().size();
        HttpResponse<String> asked = post(a, "{\"match\":\"" + match(fightOfB) + "\",\"request_id\":\"asked-of-a\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        assertThat(JSON.readTree(asked.body())).isEqualTo(JSON.readTree("{\"request_id\":\"asked-of-a\",\"matches\":1,\"messages\":3}"));
        JsonNode done = awaitEnd(a, "asked-of-a");
        assertThat(done.path("state").asText()).as(done.toString()).isEqualTo("complete");
        assertThat(done.path("delivered").asInt()).isEqualTo(3);
        assertThat(awaitEnd(b, "asked-of-a").path("state").asText()).isEqualTo("complete");
        await().atMost(LONG).until(() -> recovered(seen).size() >= historyOfB.size());
        assertThat(recovered(seen)).containsExactlyElementsOf(historyOfB);
        assertThat(recoveredBy(b)).isEqualTo(3.0);
        assertThat(recoveredBy(a)).isZero();
    }

    @Test
    @Order(2)
    void aMatchOnThePartitionOfTheInstanceAskedIsPushedByThatInstance() throws Exception {
        int seen = partner.arrivals().size();
        HttpResponse<String> asked = post(a, "{\"match\":\"" + match(fightOfA) + "\",\"request_id\":\"own-match\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        assertThat(awaitEnd(a, "own-match").path("state").asText()).isEqualTo("complete");
        await().atMost(LONG).until(() -> recovered(seen).size() >= historyOfA.size());
        assertThat(recovered(seen)).containsExactlyElementsOf(historyOfA);
        assertThat(recoveredBy(a)).isEqualTo(3.0);
        assertThat(recoveredBy(b)).isEqualTo(3.0);
    }

    @Test
    @Order(3)
    void garbageOnTheControlTopicIsPassedOverAndStopsNothing() throws Exception {
        for (String garbage : GARBAGE) {
            kafka.send(CONTROL, "garbage", garbage);
        }
        kafka.sendBytes(CONTROL, "garbage", new byte[] {(byte) 0xff, (byte) 0xfe, '{'});
        kafka.send(CONTROL, "garbage", null);

        // a request written after the garbage is read, pushed and reported through it
        int seen = partner.arrivals().size();
        HttpResponse<String> asked = post(b, "{\"match\":\"" + match(fightOfB) + "\",\"request_id\":\"after-garbage\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        assertThat(awaitEnd(b, "after-garbage").path("state").asText()).isEqualTo("complete");
        assertThat(awaitEnd(a, "after-garbage").path("state").asText()).isEqualTo("complete");
        await().atMost(LONG).until(() -> recovered(seen).size() >= historyOfB.size());
        assertThat(recovered(seen)).containsExactlyElementsOf(historyOfB);

        // each instance passed over each garbage record, naming where it is, never what it says
        List<String> passedOver = logs.messages().stream().filter(m -> m.contains("passed over")).toList();
        assertThat(passedOver).hasSize(2 * (GARBAGE.size() + 2));
        assertThat(passedOver).noneMatch(m -> m.contains("exploded") || m.contains("../") || m.contains("999"));
    }

    @Test
    @Order(4)
    void aRequestAcceptedWhileNoInstanceOwnsThePartitionIsPushedByTheInstanceAssignedItLater() throws Exception {
        a.context().getRouteController().stopRoute(ROUTE);
        b.context().getRouteController().stopRoute(ROUTE);
        await().atMost(LONG).until(() -> ofA.owned().isEmpty() && ofB.owned().isEmpty());

        int seen = partner.arrivals().size();
        HttpResponse<String> asked = post(a, "{\"match\":\"" + match(fightOfA) + "\",\"request_id\":\"nobody-owns\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        String path = "/v1/liveodds/42/recovery/nobody-owns";
        await().during(Duration.ofSeconds(2)).atMost(LONG).until(() -> state(a, path).equals("queued") && state(b, path).equals("queued"));

        b.context().getRouteController().startRoute(ROUTE);
        assertThat(awaitEnd(a, "nobody-owns").path("state").asText()).isEqualTo("complete");
        await().atMost(LONG).until(() -> recovered(seen).size() >= historyOfA.size());
        assertThat(recovered(seen)).containsExactlyElementsOf(historyOfA);
        assertThat(recoveredBy(b)).isEqualTo(9.0);
        assertThat(recoveredBy(a)).isEqualTo(3.0);
    }

    @Test
    @Order(5)
    void aPartWhosePartitionMovesWhileItIsPushedIsWithdrawnThereAndPushedByTheNewOwner() throws Exception {
        String moving = match(fightOfB);
        partner.failing(path -> path.contains(moving));
        double byA = recoveredBy(a);
        double byB = recoveredBy(b);
        int seen = partner.arrivals().size();
        HttpResponse<String> asked = post(a, "{\"match\":\"" + moving + "\",\"request_id\":\"moved\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        // b owns every partition since the last test: its first push of the part is refused, and it waits to retry
        await().atMost(LONG).until(() -> partner.arrivals().subList(seen, partner.arrivals().size()).stream()
                .anyMatch(arrival -> arrival.status() == 503 && historyOfB.contains(arrival.messageId())));

        b.context().getRouteController().stopRoute(ROUTE);
        a.context().getRouteController().startRoute(ROUTE);
        await().atMost(LONG).until(() -> ofA.owned().size() == PARTITIONS && ofB.owned().isEmpty());
        partner.failing(path -> false);

        assertThat(awaitEnd(a, "moved").path("state").asText()).isEqualTo("complete");
        await().atMost(LONG).until(() -> recoveredBy(a) - byA >= historyOfB.size());
        // what b had queued went back unsent once the partition left it (its retries, 1 s apart at most, would have
        // come by now): the new owner pushed the part
        await().during(Duration.ofSeconds(3)).atMost(LONG).until(() -> recoveredBy(b) == byB);
        assertThat(partner.arrivals().subList(seen, partner.arrivals().size()).stream()
                .filter(arrival -> arrival.status() == 202 && !arrival.isHeartbeat()).map(LoopbackPartner.Arrival::messageId))
                .containsExactlyElementsOf(historyOfB);
    }

    private static RunningService instance(String name) throws Exception {
        return RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .work(Files.createDirectories(work.resolve(name)))
                .set("liveodds.fixtures.auth.tokens", TOKEN)
                .set("liveodds.heartbeat.interval", "1h")
                .set("liveodds.delivery.backoff.max", "1s")
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                .set("liveodds.source.kafka.topic", TOPIC)
                .set("liveodds.source.kafka.group", GROUP)
                .set("liveodds.source.kafka.start", "earliest")
                .set("liveodds.source.kafka.session-timeout", "6s")
                .set("camel.main.shutdown-timeout", "1")
                .start();
    }

    /** A snapshot, a delta and a settlement of the fight's match, in that order; their ids. */
    private static List<String> history(String fight) throws Exception {
        List<String> ids = List.of("snap-" + fight, "delta-" + fight, "settled-" + fight);
        kafka.send(TOPIC, fight, message(ids.get(0), "odds", "snapshot", fight));
        kafka.send(TOPIC, fight, message(ids.get(1), "odds", "delta", fight));
        kafka.send(TOPIC, fight, message(ids.get(2), "market_settlement", null, fight));
        return ids;
    }

    private static String message(String id, String type, String oddsType, String fight) {
        return "{\"message_id\":\"" + id + "\",\"message_type\":\"" + type + "\","
                + (oddsType == null ? "" : "\"odds_type\":\"" + oddsType + "\",")
                + "\"timestamp\":\"" + Instant.now() + "\",\"fight_metadata\":{\"fight_id\":\"" + fight
                + "\",\"fight_id_sr\":\"" + match(fight) + "\"},\"markets\":[{\"id\":\"1\",\"status\":1,\"outcomes\":"
                + "[{\"id\":\"1\",\"odds\":1.5,\"active\":true}]}]}";
    }

    private static String match(String fight) {
        return "match:" + (77_000 + Long.parseLong(fight));
    }

    /** A fight id the default partitioner puts on one of these partitions (records are keyed by fight id). */
    private static String fightOn(Set<TopicPartition> partitions) {
        for (int fight = 500; ; fight++) {
            String key = Integer.toString(fight);
            int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
            if (partitions.contains(new TopicPartition(TOPIC, partition))) {
                return key;
            }
        }
    }

    /** The Idempotency-Keys of the pushes the partner got since {@code seen}. */
    private static List<String> recovered(int seen) {
        List<LoopbackPartner.Arrival> all = partner.arrivals();
        return ids(all.subList(seen, all.size()).stream().filter(arrival -> !arrival.isHeartbeat()).toList());
    }

    private static List<String> ids(List<LoopbackPartner.Arrival> arrivals) {
        return arrivals.stream().map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static double recoveredBy(RunningService service) throws Exception {
        Double value = MetricsScrape.of(service).value("liveodds_recovered_messages_total");
        return value == null ? 0 : value;
    }

    private static HttpResponse<String> post(RunningService service, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort()
                        + "/v1/liveodds/42/recovery")).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String state(RunningService service, String path) throws Exception {
        return JSON.readTree(service.request("GET", path, "Bearer " + TOKEN).body()).path("state").asText();
    }

    private static JsonNode awaitEnd(RunningService service, String requestId) {
        String path = "/v1/liveodds/42/recovery/" + requestId;
        return await().atMost(LONG).until(() -> JSON.readTree(service.request("GET", path, "Bearer " + TOKEN).body()),
                s -> s.path("state").asText().equals("complete") || s.path("state").asText().equals("failed"));
    }
}
