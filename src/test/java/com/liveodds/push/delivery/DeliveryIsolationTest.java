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
            await().atMost(Duration.ofSeconds(10)).until(() -> delivered(partner).size() == idle.size());

            partner.failing(path -> path.contains("match:" + FAILING + "/"));
            Map<String, Long> droppedAt = new LinkedHashMap<>();
            long phaseStart = System.nanoTime();
            for (int tick = 0; tick < 30; tick++) {
                for (long match : concat(List.of(FAILING), busy)) {
                    String id = "m" + match + "-" + tick;
                    service.drop(String.format("%06d.json", seq++), Messages.odds(id, Messages.external("f" + match, match)));
                    droppedAt.put(id, System.nanoTime());
                }
                long next = phaseStart + (tick + 1) * 100_000_000L;
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5)).until(() -> System.nanoTime() >= next);
            }
            List<String> busyIds = droppedAt.keySet().stream().filter(id -> !id.startsWith("m" + FAILING)).toList();
            await().atMost(Duration.ofSeconds(20)).until(() -> delivered(partner).keySet().containsAll(busyIds));
            long phaseEnd = System.nanoTime();

            Map<String, Arrival> delivered = delivered(partner);
            List<Long> delaysMillis = busyIds.stream()
                    .map(id -> (delivered.get(id).atNanos() - droppedAt.get(id)) / 1_000_000).sorted().toList();
            System.out.printf("isolation: %d messages of 10 healthy matches beside a failing one: delay p50 %d ms, max %d ms%n",
                    delaysMillis.size(), delaysMillis.get(delaysMillis.size() / 2), delaysMillis.get(delaysMillis.size() - 1));
            assertThat(delaysMillis.get(delaysMillis.size() - 1)).as("no healthy match delayed by more than 1 s").isLessThan(1000);
            assertThat(delivered.keySet()).as("nothing of the failing match got through").noneMatch(id -> id.startsWith("m" + FAILING));

            for (long match : idle) {
                List<Long> beats = partner.arrivals().stream()
                        .filter(a -> a.isHeartbeat() && a.matchId().equals("match:" + match))
                        .filter(a -> a.atNanos() >= phaseStart && a.atNanos() <= phaseEnd).map(Arrival::atNanos).toList();
                assertThat(beats).as("heartbeats of idle match %d while another match fails", match).hasSizeGreaterThanOrEqualTo(2);
                for (int i = 1; i < beats.size(); i++) {
                    assertThat((beats.get(i) - beats.get(i - 1)) / 1_000_000).as("heartbeat gap of match %d", match)
                            .isLessThanOrEqualTo(1500);
                }
            }

            partner.failing(path -> false);
            List<String> failingIds = droppedAt.keySet().stream().filter(id -> id.startsWith("m" + FAILING)).toList();
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner).keySet().containsAll(failingIds));
            List<String> order = partner.arrivals().stream()
                    .filter(a -> a.status() == 202 && a.messageId().startsWith("m" + FAILING)).map(Arrival::messageId)
                    .distinct().toList();
            assertThat(order).as("the failing match, once it recovers, in upstream order").isEqualTo(failingIds);
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

    private static List<Long> concat(List<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
