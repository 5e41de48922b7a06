package com.liveodds.push.partners;

import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_A;
import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_B;
import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_C;
import static com.liveodds.push.partners.ThreePartners.assertDeliveredInOrder;
import static com.liveodds.push.partners.ThreePartners.backlogInMemory;
import static com.liveodds.push.partners.ThreePartners.delivered;
import static com.liveodds.push.partners.ThreePartners.sizeFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.liveodds.push.source.kafka.KafkaPartitions;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka source with three partners of different bookings (contract 16): one consumer group per partner, so a
 * partner that is down holds its backlog on the broker (its group's lag) while the others keep receiving, and catches
 * up in per-match order when it is back, a restart in between included; two instances in each partner's group share
 * the partitions, and when one stops the other takes over each partner's heartbeats of the partitions it inherits.
 */
class KafkaPartnersTest {

    private static final String TOPIC = "partners";
    private static final int PARTITIONS = 4;
    private static final String GROUP = "g-partners";

    @Test
    void aPartnerThatIsDownKeepsItsBacklogOnTheBrokerWhileTheOthersGoOnAndCatchesUpInOrder(@TempDir Path work) throws Exception {
        ScheduledExecutorService alive = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedKafka kafka = new EmbeddedKafka().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            aliveEverySecond(alive, kafka);
            try {
                RunningService first = service(kafka, a, b, c, work).start();
                for (String partner : List.of("a", "b", "c")) {
                    KafkaPartitions owned = partitions(first, partner);
                    await().atMost(Duration.ofSeconds(60)).until(() -> owned.owned().size() == PARTITIONS);
                    // what its consumer fetches ahead: a third of Kafka's 1 MB per partition, so three partners buffer as one
                    assertThat(((org.apache.camel.component.kafka.KafkaEndpoint) first.context().getRoute("liveodds-source-kafka-" + partner)
                            .getEndpoint()).getConfiguration().getMaxPartitionFetchBytes()).isEqualTo(1024 * 1024 / 3);
                }
                c.failing(path -> true);

                send(kafka, "first");
                // the healthy partners get their booked messages while c answers 503 to everything
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "first").size() == sizeFor(BOOKED_BY_A)
                        && delivered(b, "first").size() == sizeFor(BOOKED_BY_B));
                assertThat(delivered(c, "first")).isEmpty();
                // c's group commits nothing past c's first open record: its backlog is the group's lag on the broker,
                // while a's and b's groups commit all but the last alive of each partition
                await().atMost(Duration.ofSeconds(20)).until(() -> lag(kafka, GROUP + "-a") <= PARTITIONS
                        && lag(kafka, GROUP + "-b") <= PARTITIONS);
                long cLag = lag(kafka, GROUP + "-c");
                System.out.printf("KAFKA-PARTNERS: lag while c is down a=%d b=%d c=%d%n",
                        lag(kafka, GROUP + "-a"), lag(kafka, GROUP + "-b"), cLag);
                assertThat(cLag).isGreaterThanOrEqualTo(sizeFor(BOOKED_BY_C));
                // down for longer than its queues in memory can hold: what does not fit waits on the broker
                assertThat(backlogInMemory(first, "c")).isLessThanOrEqualTo(ThreePartners.QUEUE_SHARE);

                // the service stops while c is down, and starts again from each partner's own offsets
                first.close();
                send(kafka, "second");
                try (RunningService second = service(kafka, a, b, c, work).start()) {
                    // for as long as c stays down, the others keep receiving
                    await().atMost(Duration.ofSeconds(60)).until(() -> delivered(a, "second").size() == sizeFor(BOOKED_BY_A)
                            && delivered(b, "second").size() == sizeFor(BOOKED_BY_B));
                    assertThat(lag(kafka, GROUP + "-c")).isGreaterThanOrEqualTo(2L * sizeFor(BOOKED_BY_C));
                    assertThat(backlogInMemory(second, "c")).isLessThanOrEqualTo(ThreePartners.QUEUE_SHARE);

                    c.failing(path -> false);
                    await().atMost(Duration.ofSeconds(60)).until(() -> delivered(c, "first").size() == sizeFor(BOOKED_BY_C)
                            && delivered(c, "second").size() == sizeFor(BOOKED_BY_C));
                    await().atMost(Duration.ofSeconds(20)).until(() -> lag(kafka, GROUP + "-c") <= PARTITIONS);

                    // nothing lost, nothing unbooked, per match in upstream order, for each partner
                    assertDeliveredInOrder(a, BOOKED_BY_A);
                    assertDeliveredInOrder(b, BOOKED_BY_B);
                    assertDeliveredInOrder(c, BOOKED_BY_C);
                    assertThat(second.deadLetterCount()).isZero();
                }
            } finally {
                alive.shutdownNow();
            }
        }
    }

    @Test
    void twoInstancesShareEachPartnersGroupAndTheSurvivorTakesOverEachPartnersHeartbeats(@TempDir Path work) throws Exception {
        ScheduledExecutorService alive = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedKafka kafka = new EmbeddedKafka().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            kafka.createTopic(TOPIC, PARTITIONS);
            aliveEverySecond(alive, kafka);
            try (RunningService first = service(kafka, a, b, c, work.resolve("first")).start();
                 RunningService second = service(kafka, a, b, c, work.resolve("second")).start()) {
                for (String partner : List.of("a", "b", "c")) {
                    KafkaPartitions ofFirst = partitions(first, partner);
                    KafkaPartitions ofSecond = partitions(second, partner);
                    await().atMost(Duration.ofSeconds(60)).until(() -> ofFirst.owned().size() == PARTITIONS / 2
                            && ofSecond.owned().size() == PARTITIONS / 2);
                    assertThat(ofFirst.owned()).doesNotContainAnyElementsOf(ofSecond.owned());
                }

                send(kafka, "scaled");
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(a, "scaled").size() == sizeFor(BOOKED_BY_A)
                        && delivered(b, "scaled").size() == sizeFor(BOOKED_BY_B)
                        && delivered(c, "scaled").size() == sizeFor(BOOKED_BY_C));
                assertDeliveredInOrder(a, BOOKED_BY_A);
                assertDeliveredInOrder(b, BOOKED_BY_B);
                assertDeliveredInOrder(c, BOOKED_BY_C);

                // the second instance stops: in each partner's group the first takes its partitions over, and with
                // them the heartbeats of that partner's idle matches there, read back into that partner's live matches
                Map<String, Set<TopicPartition>> ownedBySecond = new LinkedHashMap<>();
                for (String partner : List.of("a", "b", "c")) {
                    ownedBySecond.put(partner, partitions(second, partner).owned());
                }
                second.close();
                // from here on, a heartbeat can only come from the first instance
                long stopped = System.nanoTime();
                for (String partner : List.of("a", "b", "c")) {
                    KafkaPartitions ofFirst = partitions(first, partner);
                    await().atMost(Duration.ofSeconds(30)).until(() -> ofFirst.owned().size() == PARTITIONS);
                }
                Map<LoopbackPartner, Set<Long>> moved = Map.of(a, movedMatches(BOOKED_BY_A, ownedBySecond.get("a")),
                        b, movedMatches(BOOKED_BY_B, ownedBySecond.get("b")), c, movedMatches(BOOKED_BY_C, ownedBySecond.get("c")));
                // fights on three partitions of four, half of the partitions on the second: at least one of a's moved
                assertThat(moved.get(a)).isNotEmpty();
                await().atMost(Duration.ofSeconds(30)).until(() -> moved.entrySet().stream().allMatch(e -> e.getValue().stream()
                        .allMatch(match -> heartbeatsSince(e.getKey(), match, stopped) > 0)));
                assertThat(heartbeatsSince(b, 902L, Long.MIN_VALUE)).isZero();
                assertThat(heartbeatsSince(c, 900L, Long.MIN_VALUE)).isZero();
            } finally {
                alive.shutdownNow();
            }
        }
    }

    private static RunningService.Builder service(EmbeddedKafka kafka, LoopbackPartner a, LoopbackPartner b,
                                                  LoopbackPartner c, Path work) throws Exception {
        return ThreePartners.service(a, b, c, work)
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                .set("liveodds.source.kafka.topic", TOPIC)
                .set("liveodds.source.kafka.group", GROUP)
                .set("liveodds.source.kafka.start", "earliest")
                .set("liveodds.source.kafka.session-timeout", "6s");
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

    private static void send(EmbeddedKafka kafka, String batch) throws Exception {
        for (ThreePartners.Upstream message : ThreePartners.batch(batch)) {
            kafka.send(TOPIC, message.fight(), message.body());
        }
    }

    /** The booked matches whose fight's records go to the given partitions. */
    private static Set<Long> movedMatches(Set<Long> booked, Set<TopicPartition> partitions) {
        return ThreePartners.MATCHES.entrySet().stream().filter(e -> booked.contains(e.getValue()))
                .filter(e -> partitions.contains(new TopicPartition(TOPIC,
                        Utils.toPositive(Utils.murmur2(e.getKey().getBytes(StandardCharsets.UTF_8))) % PARTITIONS)))
                .map(Map.Entry::getValue).collect(Collectors.toSet());
    }

    private static long heartbeatsSince(LoopbackPartner partner, long match, long nanos) {
        return partner.arrivals().stream().filter(r -> r.isHeartbeat() && r.matchId().equals("match:" + match)
                && r.atNanos() > nanos).count();
    }

    private static KafkaPartitions partitions(RunningService service, String partner) {
        return service.kafkaPartitions(partner);
    }

    private static long lag(EmbeddedKafka kafka, String group) throws Exception {
        return kafka.lag(group, TOPIC, PARTITIONS);
    }
}
