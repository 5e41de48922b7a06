package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import com.liveodds.push.queue.KeyedQueueEndpoint;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;

/**
 * Three partners of different bookings on loopback and the upstream stream the broker tests send them: partner a books
 * every match, b matches 900 and 901, c matches 901 and 902.
 */
final class ThreePartners {

    /** fight id → match id; the fights' records go to three different partitions of four (Kafka's default partitioner). */
    static final Map<String, Long> MATCHES = new TreeMap<>(Map.of("2", 900L, "4", 901L, "5", 902L));
    static final Set<Long> BOOKED_BY_A = Set.of(900L, 901L, 902L);
    static final Set<Long> BOOKED_BY_B = Set.of(900L, 901L);
    static final Set<Long> BOOKED_BY_C = Set.of(901L, 902L);
    static final int ROUNDS = 20;
    /** Fewer than a partner that is down gets of one batch: its source waits for room, and the rest on the broker. */
    static final int QUEUE_SIZE = 10;
    /** What each of the three partners holds in memory at most: its share of {@link #QUEUE_SIZE}. */
    static final int QUEUE_SHARE = QUEUE_SIZE / 3;

    /** One upstream message: its fight (Kafka key, JMSXGroupID) and body. */
    record Upstream(String fight, String body) {
    }

    private ThreePartners() {
    }

    /**
     * The service with partners a, b and c; every message pushed (none superseded), retried quickly while one is down,
     * and {@link #QUEUE_SIZE} pushes at most waiting in memory, shared by the three partners.
     */
    static RunningService.Builder service(LoopbackPartner a, LoopbackPartner b, LoopbackPartner c, Path work) throws IOException {
        Files.createDirectories(work);
        Path bookingB = Files.writeString(work.resolve("booking-b.txt"), "# b\nmatch:900\n901\n");
        Path bookingC = Files.writeString(work.resolve("booking-c.txt"), "match:901\nmatch:902\n");
        return RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .partner("c", "303", c.baseUrl(), c.authUrl())
                .set("liveodds.partners.b.booking", bookingB.toString())
                .set("liveodds.partners.c.booking", bookingC.toString())
                .set("liveodds.delivery.supersede", "false")
                .set("liveodds.delivery.backoff.max", "500ms")
                .set("liveodds.delivery.queue-size", Integer.toString(QUEUE_SIZE))
                .work(work);
    }

    /** {@link #ROUNDS} rounds of every fight, interleaved, message ids {@code <batch>-<fight>-<seq>}. */
    static List<Upstream> batch(String batch) {
        List<Upstream> messages = new ArrayList<>();
        for (int seq = 0; seq < ROUNDS; seq++) {
            for (Map.Entry<String, Long> fight : MATCHES.entrySet()) {
                messages.add(new Upstream(fight.getKey(), Messages.odds(batch + "-" + fight.getKey() + "-" + seq,
                        Messages.external(fight.getKey(), fight.getValue()))));
            }
        }
        return messages;
    }

    /** How many messages of a batch the partners booking these matches should get. */
    static int sizeFor(Set<Long> booked) {
        return booked.size() * ROUNDS;
    }

    /** Pushes waiting or in retry in the partner's queues: what its backlog holds in memory. */
    static int backlogInMemory(RunningService service, String partner) {
        return service.context().getEndpoint("liveoddsQueue:liveodds-push-" + partner, KeyedQueueEndpoint.class).getHeld();
    }

    /** Distinct message ids of a batch the partner accepted (202). */
    static Set<String> delivered(LoopbackPartner partner, String batch) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat() && r.status() == 202)
                .map(LoopbackPartner.Arrival::messageId).filter(id -> id.startsWith(batch + "-")).collect(Collectors.toSet());
    }

    /**
     * Every booked match and only those, each with every message of the batches it got, in upstream order (first
     * arrivals: a repeat of a message may follow it, at least once).
     */
    static void assertDeliveredInOrder(LoopbackPartner partner, Set<Long> booked) {
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
            String fight = MATCHES.entrySet().stream().filter(e -> ("match:" + e.getValue()).equals(match))
                    .findFirst().orElseThrow().getKey();
            List<String> expected = new ArrayList<>();
            order.stream().map(id -> id.substring(0, id.indexOf('-'))).distinct()
                    .forEach(batch -> IntStream.range(0, ROUNDS).forEach(seq -> expected.add(batch + "-" + fight + "-" + seq)));
            assertThat(order).as("order of %s", match).isEqualTo(expected);
        });
    }
}
