package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import com.liveodds.push.source.kafka.KafkaPartitions;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The Kafka source with three partners of different bookings (contract 16): one consumer group per partner, so a
 * partner that is down holds its backlog on the broker (its group's lag) while the others keep receiving, and catches
 * up in per-match order when it is back; two instances in each partner's group share the partitions.
 */
class KafkaPartnersTest {

    private static final String TOPIC = "partners";
    private static final int PARTITIONS = 4;
    private static final String GROUP = "g-partners";
    /** fight id → match id: 900 is booked by a and b, 901 by a, b and c, 902 by a and c. */
    private static final Map<String, Long> MATCHES = Map.of("1", 900L, "2", 901L, "3", 902L);

    @Test
    void aPartnerThatIsDownKeepsItsBacklogOnTheBrokerWhileTheOthersGoOnAndCatchesUpInOrder() throws Exception {
        ScheduledExecutorService alive = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedKafka kafka = new EmbeddedKafka().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            aliveEverySecond(alive, kafka);
            try (RunningService service = service(kafka, a, b, c, Files.createTempDirectory("kafka-partners")).start()) {
                awaitOwned(service, PARTITIONS);
                c.failing(path -> true);

                send(kafka, "first", 0, 20);
                // the healthy partners get their booked messages while c answers 503 to everything
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "first").size() == 60
                        && delivered(b, "first").size() == 40);
                assertThat(delivered(c, "first")).isEmpty();
                // c's group commits nothing past c's first open record: its backlog is the group's lag on the broker
                long cLag = lag(kafka, GROUP + "-c");
                System.out.printf("KAFKA-PARTNERS: lag while c is down a=%d b=%d c=%d%n",
                        lag(kafka, GROUP + "-a"), lag(kafka, GROUP + "-b"), cLag);
                assertThat(cLag).isGreaterThanOrEqualTo(40);
                await().atMost(Duration.ofSeconds(20)).until(() -> lag(kafka, GROUP + "-a") <= PARTITIONS
                        && lag(kafka, GROUP + "-b") <= PARTITIONS);

                // for as long as c stays down, the others keep receiving
                send(kafka, "second", 0, 20);
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "second").size() == 60
                        && delivered(b, "second").size() == 40);
                assertThat(lag(kafka, GROUP + "-c")).isGreaterThanOrEqualTo(80);

                c.failing(path -> false);
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(c, "first").size() == 40
                        && delivered(c, "second").size() == 40);
                await().atMost(Duration.ofSeconds(20)).until(() -> lag(kafka, GROUP + "-c") <= PARTITIONS);

                // nothing lost, nothing unbooked, per match in upstream order, for each partner
                assertDelivered(a, Set.of(900L, 901L, 902L));
                assertDelivered(b, Set.of(900L, 901L));
                assertDelivered(c, Set.of(901L, 902L));
                assertThat(service.deadLetterCount()).isZero();
            } finally {
                alive.shutdownNow();
            }
        }
    }

    @Test
    void twoInstancesShareEachPartnersGroupAndEveryMessageReachesEveryPartnerThatBookedIt() throws Exception {
        ScheduledExecutorService alive = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedKafka kafka = new EmbeddedKafka().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            aliveEverySecond(alive, kafka);
            Path work = Files.createTempDirectory("kafka-partners-scale");
            try (RunningService first = service(kafka, a, b, c, work.resolve("first")).start();
                 RunningService second = service(kafka, a, b, c, work.resolve("second")).start()) {
                for (String partner : List.of("a", "b", "c")) {
                    KafkaPartitions ofFirst = partitions(first, partner);
                    KafkaPartitions ofSecond = partitions(second, partner);
                    await().atMost(Duration.ofSeconds(60)).until(() -> ofFirst.owned().size() == PARTITIONS / 2
                            && ofSecond.owned().size() == PARTITIONS / 2);
                    assertThat(ofFirst.owned()).doesNotContainAnyElementsOf(ofSecond.owned());
                }

                send(kafka, "scaled", 0, 20);
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(a, "scaled").size() == 60
                        && delivered(b, "scaled").size() == 40 && delivered(c, "scaled").size() == 40);
                assertDelivered(a, Set.of(900L, 901L, 902L));
                assertDelivered(b, Set.of(900L, 901L));
                assertDelivered(c, Set.of(901L, 902L));
            } finally {
                alive.shutdownNow();
            }
        }
    }

    private static RunningService.Builder service(EmbeddedKafka kafka, LoopbackPartner a, LoopbackPartner b,
                                                  LoopbackPartner c, Path work) throws Exception {
        Files.createDirectories(work);
        Path bookingB = Files.writeString(work.resolve("booking-b.txt"), "# b\nmatch:900\n901\n");
        Path bookingC = Files.writeString(work.resolve("booking-c.txt"), "match:901\nmatch:902\n");
        return RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .partner("c", "303", c.baseUrl(), c.authUrl())
                .set("liveodds.partners.b.booking", bookingB.toString())
                .set("liveodds.partners.c.booking", bookingC.toString())
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                .set("liveodds.source.kafka.topic", TOPIC)
                .set("liveodds.source.kafka.group", GROUP)
                .set("liveodds.source.kafka.start", "earliest")
                .set("liveodds.source.kafka.session-timeout", "6s")
                // every message pushed (no snapshot supersedes another), retried quickly for as long as c is down
                .set("liveodds.delivery.supersede", "false")
                .set("liveodds.delivery.backoff.max", "500ms")
                .work(work);
    }

    private static void aliveEverySecond(ScheduledExecutorService alive, EmbeddedKafka kafka) {
        // producers send alive to every partition: it is also what moves each group's commits on once a stream stops
        alive.scheduleAtFixedRate(() -> {
            try {
                kafka.sendToEveryPartition(TOPIC, Messages.alive());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, 0, 1, TimeUnit.SECONDS);
    }

    /** Rounds {@code from} until {@code to} of every fight, interleaved, ids {@code <batch>-<fight>-<seq>}. */
    private static void send(EmbeddedKafka kafka, String batch, int from, int to) throws Exception {
        for (int seq = from; seq < to; seq++) {
            for (Map.Entry<String, Long> fight : new java.util.TreeMap<>(MATCHES).entrySet()) {
                kafka.send(TOPIC, fight.getKey(), Messages.odds(batch + "-" + fight.getKey() + "-" + seq,
                        Messages.external(fight.getKey(), fight.getValue())));
            }
        }
    }

    private static void awaitOwned(RunningService service, int partitions) {
        for (String partner : List.of("a", "b", "c")) {
            KafkaPartitions owned = partitions(service, partner);
            await().atMost(Duration.ofSeconds(60)).until(() -> owned.owned().size() == partitions);
        }
    }

    private static KafkaPartitions partitions(RunningService service, String partner) {
        return service.bean("liveoddsKafkaPartitions-" + partner, KafkaPartitions.class);
    }

    /** Distinct message ids of a batch the partner accepted (202). */
    private static Set<String> delivered(LoopbackPartner partner, String batch) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat() && r.status() == 202)
                .map(LoopbackPartner.Arrival::messageId).filter(id -> id.startsWith(batch + "-")).collect(Collectors.toSet());
    }

    /** Every booked match, and only those, with every message in upstream order (first arrivals; a repeat may follow). */
    private static void assertDelivered(LoopbackPartner partner, Set<Long> booked) {
        Map<String, List<String>> perMatch = new LinkedHashMap<>();
        for (LoopbackPartner.Arrival arrival : partner.arrivals()) {
            if (!arrival.isHeartbeat() && arrival.status() == 202) {
                List<String> order = perMatch.computeIfAbsent(arrival.matchId(), k -> new ArrayList<>());
                if (!order.contains(arrival.messageId())) {
                    order.add(arrival.messageId());
                }
            }
        }
        assertThat(perMatch.keySet()).containsExactlyInAnyOrderElementsOf(booked.stream().map(m -> "match:" + m).toList());
        perMatch.forEach((match, order) -> {
            String fight = MATCHES.entrySet().stream().filter(e -> ("match:" + e.getValue()).equals(match)).findFirst().orElseThrow().getKey();
            List<String> batches = order.stream().map(id -> id.substring(0, id.indexOf('-'))).distinct().toList();
            List<String> expected = new ArrayList<>();
            for (String batch : batches) {
                IntStream.range(0, 20).forEach(seq -> expected.add(batch + "-" + fight + "-" + seq));
            }
            assertThat(order).as("order of %s", match).isEqualTo(expected);
        });
    }

    /** What the group has not committed yet, over all partitions: end offsets minus committed offsets. */
    private static long lag(EmbeddedKafka kafka, String group) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
            IntStream.range(0, PARTITIONS).forEach(p -> latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest()));
            long lag = 0;
            for (var end : admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet()) {
                OffsetAndMetadata at = committed.get(end.getKey());
                lag += end.getValue().offset() - (at == null ? 0 : at.offset());
            }
            return lag;
        }
    }
}
