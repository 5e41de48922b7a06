package com.liveodds.push.source.kafka;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import com.liveodds.push.support.WireMockPartner;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two instances in one consumer group; one stops mid-stream. Every message still reaches the partner, per match in
 * upstream order (a repeat of the message just pushed is allowed: at least once), and the survivor takes over the
 * heartbeats of the idle matches whose partitions it inherits.
 */
class KafkaScaleOutTest {

    private static final String TOPIC = "scale";
    private static final int PARTITIONS = 4;
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);
    private static final int STREAMING_FIGHTS = 6;
    private static final int ROUNDS = 40;

    @TempDir
    Path work;

    @Test
    void theSurvivorDeliversEverythingInOrderAndKeepsTheHeartbeatsGoing() throws Exception {
        survivorTakesOver(false);
    }

    /** The other instance runs in a process of its own and is killed with SIGKILL: no goodbye to the group. */
    @Test
    void afterACrashTheSurvivorTakesOverWithinTheSessionTimeoutPlusFiveSeconds() throws Exception {
        survivorTakesOver(true);
    }

    private void survivorTakesOver(boolean crash) throws Exception {
        ScheduledExecutorService alive = Executors.newSingleThreadScheduledExecutor();
        try (EmbeddedKafka kafka = new EmbeddedKafka().start();
             WireMockPartner partner = new WireMockPartner().acceptingEverything()) {
            // a partner that takes a moment per push, so the stop lands while records are still being worked through
            partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*/odds")).atPriority(1)
                    .willReturn(aResponse().withStatus(202).withFixedDelay(15)));
            kafka.createTopic(TOPIC, PARTITIONS);
            alive.scheduleAtFixedRate(() -> {
                try {
                    kafka.sendToEveryPartition(TOPIC, Messages.alive());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, 0, 1, TimeUnit.SECONDS);

            RunningService b = instance(kafka, partner);
            KafkaPartitions ofB = b.kafkaPartitions("");
            await().atMost(Duration.ofSeconds(30)).until(() -> ofB.owned().size() == PARTITIONS);
            AutoCloseable a = crash ? ServiceProcess.start(processSettings(kafka, partner), work.resolve("instance-a.log"))
                    : instance(kafka, partner);
            try {
                // A holds what B gave up when A joined
                await().atMost(Duration.ofSeconds(60)).until(() -> ofB.owned().size() == PARTITIONS / 2);
                Set<TopicPartition> ownedByA = new java.util.HashSet<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    ownedByA.add(new TopicPartition(TOPIC, p));
                }
                ownedByA.removeAll(ofB.owned());

                // idle fights: a few messages each, then silence; half of them on the partitions of the instance that stops
                List<String> idleOnA = fightsOn(ownedByA, true, 3);
                List<String> idleOnB = fightsOn(ownedByA, false, 3);
                for (String fight : concat(idleOnA, idleOnB)) {
                    for (int seq = 0; seq < 3; seq++) {
                        kafka.send(TOPIC, fight, Messages.odds("i-" + fight + "-" + seq, Messages.external(fight, match(fight))));
                    }
                }
                // every idle match on A has had a heartbeat from A before A stops
                await().atMost(Duration.ofSeconds(20)).until(() -> idleOnA.stream()
                        .allMatch(f -> !heartbeats(partner, match(f)).isEmpty()));

                sendRounds(kafka, 0, ROUNDS / 2);
                await().atMost(Duration.ofSeconds(30)).until(() -> streamed(partner).size() >= STREAMING_FIGHTS * ROUNDS / 6);
                Instant stopped = Instant.now();
                int streamedBeforeStop = streamed(partner).size();
                if (a instanceof ServiceProcess process) {
                    process.kill();
                } else {
                    a.close();
                }
                sendRounds(kafka, ROUNDS / 2, ROUNDS);

                await().atMost(Duration.ofSeconds(60)).until(() -> streamed(partner).stream()
                        .map(r -> r.getHeader("Idempotency-Key")).distinct().count() == (long) STREAMING_FIGHTS * ROUNDS);
                await().atMost(SESSION_TIMEOUT.plusSeconds(15)).until(() -> idleOnA.stream()
                        .allMatch(f -> heartbeats(partner, match(f)).stream().anyMatch(h -> h.getLoggedDate().toInstant().isAfter(stopped))));
                assertThat(ofB.owned()).hasSize(PARTITIONS);

                // order per match: nothing missing, first deliveries in upstream order. A clean stop commits what
                // is finished, so at most the message just pushed comes again; a crash leaves the records delivered
                // since the last commit uncommitted, and the new owner replays them as a block with the same
                // Idempotency-Key (at least once), so there only a replay of an earlier key may follow a later one.
                Map<String, List<Integer>> perMatch = new LinkedHashMap<>();
                for (LoggedRequest push : streamed(partner)) {
                    String[] key = push.getHeader("Idempotency-Key").split("-");
                    perMatch.computeIfAbsent(key[1], k -> new ArrayList<>()).add(Integer.parseInt(key[2]));
                }
                int repeats = 0;
                int violations = 0;
                for (List<Integer> order : perMatch.values()) {
                    List<Integer> firsts = new ArrayList<>();
                    for (int seq : order) {
                        boolean consecutiveRepeat = !firsts.isEmpty() && firsts.get(firsts.size() - 1) == seq;
                        if (firsts.contains(seq)) {
                            repeats++;
                            if (!crash && !consecutiveRepeat) {
                                violations++;
                            }
                        } else {
                            if (!firsts.isEmpty() && seq != firsts.get(firsts.size() - 1) + 1) {
                                violations++;
                            }
                            firsts.add(seq);
                        }
                    }
                    assertThat(firsts).isEqualTo(IntStream.range(0, ROUNDS).boxed().toList());
                }
                // longest heartbeat silence of a moved idle match across the stop
                long worstGapMillis = 0;
                long takeoverMillis = 0;
                for (String fight : idleOnA) {
                    List<Instant> beats = heartbeats(partner, match(fight)).stream().map(h -> h.getLoggedDate().toInstant()).sorted().toList();
                    takeoverMillis = Math.max(takeoverMillis, beats.stream().filter(t -> t.isAfter(stopped)).findFirst()
                            .map(t -> Duration.between(stopped, t).toMillis()).orElseThrow());
                    for (int i = 1; i < beats.size(); i++) {
                        worstGapMillis = Math.max(worstGapMillis, Duration.between(beats.get(i - 1), beats.get(i)).toMillis());
                    }
                }
                System.out.printf("SCALE-OUT (%s): messages=%d pushes=%d repeats=%d orderViolations=%d movedIdleMatches=%d"
                                + " takeoverMs=%d worstHeartbeatGapMs=%d streamedBeforeStop=%d%n", crash ? "SIGKILL" : "clean stop", STREAMING_FIGHTS * ROUNDS, streamed(partner).size(),
                        repeats, violations, idleOnA.size(), takeoverMillis, worstGapMillis, streamedBeforeStop);
                assertThat(violations).isZero();
                if (crash) {
                    // nobody told the group: the partitions move once the session times out
                    assertThat(takeoverMillis).isLessThanOrEqualTo(SESSION_TIMEOUT.plusSeconds(5).toMillis());
                } else {
                    assertThat(worstGapMillis).isLessThanOrEqualTo(SESSION_TIMEOUT.plusSeconds(5).toMillis());
                }
            } finally {
                alive.shutdownNow();
                a.close();
                b.close();
            }
        }
    }

    private Map<String, String> processSettings(EmbeddedKafka kafka, WireMockPartner partner) throws Exception {
        Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
        settings.put("liveodds.partner.client-id", "push-client");
        settings.put("liveodds.partner.client-secret", "s3cr3t-value");
        settings.put("liveodds.source", "kafka");
        settings.put("liveodds.source.kafka.brokers", kafka.bootstrap());
        settings.put("liveodds.source.kafka.topic", TOPIC);
        settings.put("liveodds.source.kafka.group", "g-scale");
        settings.put("liveodds.source.kafka.start", "earliest");
        settings.put("liveodds.source.kafka.session-timeout", SESSION_TIMEOUT.toSeconds() + "s");
        return settings;
    }

    private static RunningService instance(EmbeddedKafka kafka, WireMockPartner partner) {
        return RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.source", "kafka")
                .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                .set("liveodds.source.kafka.topic", TOPIC)
                .set("liveodds.source.kafka.group", "g-scale")
                .set("liveodds.source.kafka.start", "earliest")
                .set("liveodds.source.kafka.session-timeout", SESSION_TIMEOUT.toSeconds() + "s")
                .start();
    }

    private static void sendRounds(EmbeddedKafka kafka, int from, int to) throws Exception {
        for (int seq = from; seq < to; seq++) {
            for (int f = 0; f < STREAMING_FIGHTS; f++) {
                String fight = Integer.toString(300 + f);
                kafka.send(TOPIC, fight, Messages.odds("s-" + fight + "-" + seq, Messages.external(fight, match(fight))));
            }
        }
    }

    /** Fight ids whose records the default partitioner puts on (or off) the given partitions. */
    private static List<String> fightsOn(Set<TopicPartition> partitions, boolean on, int count) {
        List<String> fights = new ArrayList<>();
        for (int fight = 400; fights.size() < count; fight++) {
            String key = Integer.toString(fight);
            int partition = Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % PARTITIONS;
            if (partitions.contains(new TopicPartition(TOPIC, partition)) == on) {
                fights.add(key);
            }
        }
        return fights;
    }

    private static long match(String fight) {
        return 81000L + Long.parseLong(fight);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static List<LoggedRequest> streamed(WireMockPartner partner) {
        return partner.pushes("odds").stream().filter(r -> r.getHeader("Idempotency-Key").startsWith("s-")).toList();
    }

    private static List<LoggedRequest> heartbeats(WireMockPartner partner, long match) {
        return partner.pushes("heartbeat").stream().filter(r -> r.getUrl().contains("/match:" + match + "/")).toList();
    }
}
