package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.LoopbackPartner.Arrival;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;

/** Contract section 10, isolation: order is kept per match and nowhere else. Real service, real HTTP on loopback. */
class DeliveryIsolationTest {

    private static final long FAILING = 9100;

    @Test
    void aMatchInRetryDelaysNoOtherMatchNorTheHeartbeatsOfIdleOnes() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner().latency(5);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.heartbeat.interval", "1s")
                     .set("liveodds.upstream.max-silence", "0")
                     .start()) {
            List<Long> idle = List.of(9101L, 9102L, 9103L, 9104L);
            List<Long> busy = List.of(9110L, 9111L, 9112L, 9113L, 9114L, 9115L, 9116L, 9117L, 9118L, 9119L);
            int seq = 0;
            for (long match : idle) {
                service.drop(String.format("%06d.json", seq++), Messages.odds("idle-" + match, Messages.external("f" + match, match)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner).size() == idle.size());

            // the failing match stays in retry until it is let through below: everything asserted before that happens
            // beside it
            partner.failing(path -> path.contains("match:" + FAILING + "/"));
            long phaseStart = System.nanoTime();
            List<String> dropped = new ArrayList<>();
            for (int tick = 0; tick < 30; tick++) {
                for (long match : concat(List.of(FAILING), busy)) {
                    String id = String.format("m%d-%02d", match, tick);
                    service.drop(String.format("%06d.json", seq++), Messages.odds(id, Messages.external("f" + match, match)));
                    dropped.add(id);
                }
            }
            List<String> busyIds = dropped.stream().filter(id -> !id.startsWith("m" + FAILING)).toList();
            List<String> failingIds = dropped.stream().filter(id -> id.startsWith("m" + FAILING)).toList();
            await("every message of the healthy matches, beside the failing one").atMost(Duration.ofSeconds(60))
                    .until(() -> delivered(partner).keySet().containsAll(busyIds));
            await("heartbeats of every idle match, beside the failing one").atMost(Duration.ofSeconds(30))
                    .until(() -> idle.stream().allMatch(match -> heartbeatsSince(partner, match, phaseStart) >= 2));

            assertThat(partner.arrivals()).as("the failing match was tried, and refused, meanwhile")
                    .anyMatch(a -> a.status() == 503 && a.messageId().startsWith("m" + FAILING));
            assertThat(delivered(partner).keySet()).as("nothing of the failing match got through")
                    .noneMatch(id -> id.startsWith("m" + FAILING));
            assertInOrderPerMatch(partner);

            partner.failing(path -> false);
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered(partner).keySet().containsAll(failingIds));
            List<String> order = partner.arrivals().stream()
                    .filter(a -> a.status() == 202 && a.messageId().startsWith("m" + FAILING)).map(Arrival::messageId)
                    .distinct().toList();
            assertThat(order).as("the failing match, once it recovers, in upstream order").isEqualTo(failingIds);
            assertThat(delivered(partner).keySet()).as("none lost").containsAll(dropped);
            assertInOrderPerMatch(partner);
        }
    }

    @Test
    void aSlowPartnerGetsManyMatchesAtOnceEachInOrder(@org.junit.jupiter.api.io.TempDir Path work) throws Exception {
        int matches = 64;
        int perMatch = 8;
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (int i = 0; i < matches * perMatch; i++) {
            long match = 9200 + i % matches;
            String id = String.format("s%05d", i);
            expected.computeIfAbsent("match:" + match, k -> new ArrayList<>()).add(id);
            Files.writeString(inbox.resolve(id + ".json"), Messages.odds(id, Messages.external("f" + match, match)));
        }
        try (LoopbackPartner partner = new LoopbackPartner().latency(20);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                     .set("liveodds.upstream.max-silence", "0")
                     .start()) {
            long started = System.nanoTime();
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered(partner).size() == matches * perMatch);
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("concurrency: %d pushes over %d matches, partner 20 ms: %.1f s, at most %d in flight at the partner%n",
                    matches * perMatch, matches, seconds, partner.mostInHand());
            assertThat(partner.mostInHand()).as("more pushes at once than the 8 lanes of old").isGreaterThan(8);
            Map<String, List<String>> byMatch = partner.arrivals().stream().filter(a -> !a.isHeartbeat())
                    .collect(Collectors.groupingBy(Arrival::matchId, LinkedHashMap::new,
                            Collectors.mapping(Arrival::messageId, Collectors.toList())));
            assertThat(byMatch).isEqualTo(expected);
        }
    }

    private static Map<String, Arrival> delivered(LoopbackPartner partner) {
        Map<String, Arrival> delivered = new LinkedHashMap<>();
        partner.arrivals().stream().filter(a -> a.status() == 202 && !a.isHeartbeat())
                .forEach(a -> delivered.putIfAbsent(a.messageId(), a));
        return delivered;
    }

    private static long heartbeatsSince(LoopbackPartner partner, long match, long sinceNanos) {
        return partner.arrivals().stream()
                .filter(a -> a.isHeartbeat() && a.matchId().equals("match:" + match) && a.atNanos() >= sinceNanos).count();
    }

    /** Message ids sort in upstream order within their match: each match's first 2xx arrivals came in that order. */
    private static void assertInOrderPerMatch(LoopbackPartner partner) {
        Map<String, List<String>> byMatch = delivered(partner).values().stream().collect(Collectors.groupingBy(
                Arrival::matchId, Collectors.mapping(Arrival::messageId, Collectors.toList())));
        byMatch.forEach((match, ids) -> assertThat(ids).as("order of %s", match).isSorted());
    }

    private static List<Long> concat(List<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
