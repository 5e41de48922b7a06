package com.liveodds.push.bench;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.recovery.RetainedMessages;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.RunningService;
import com.sun.management.OperatingSystemMXBean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What recovery costs (contract 20), printed, never asserted: the retention's CPU and disk per accepted message (the
 * store alone, on the thread that accepts), and a recovery of N matches through a running service to a partner on
 * loopback: time to complete and the CPU of this JVM (service and partner) meanwhile.
 * And the whole pipeline with the retention on and off: the CPU this JVM spends per message delivered from the file
 * source to a partner on loopback.
 * {@code mvn -B -o test -Dtest.excludedGroups=none -Dtest=RecoveryBench [-Dbench.matches=200] [-Dbench.latency-ms=0]
 * [-Dbench.messages=3000]}.
 */
@Tag("bench")
class RecoveryBench {

    private static final int MATCHES = Integer.getInteger("bench.matches", 200);
    private static final int LATENCY_MS = Integer.getInteger("bench.latency-ms", 0);
    /** Per match: a snapshot, six deltas, three settlements. */
    private static final int PER_MATCH = 10;
    private static final int STORE_MESSAGES = 20_000;
    private static final int PIPELINE_MESSAGES = Integer.getInteger("bench.messages", 3000);

    @TempDir
    Path work;

    @Test
    void retentionCostPerAcceptedMessage() throws Exception {
        RetainedMessages store = new RetainedMessages(work.resolve("store"), Duration.ofHours(10));
        var threads = ManagementFactory.getThreadMXBean();
        // warm-up, then the measured run
        fill(store, 2_000, "warm");
        long cpu = threads.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        fill(store, STORE_MESSAGES, "run");
        long cpuNanos = threads.getCurrentThreadCpuTime() - cpu;
        long wallNanos = System.nanoTime() - wall;
        store.prune();
        long bytes;
        try (Stream<Path> files = Files.list(work.resolve("store"))) {
            bytes = files.mapToLong(p -> p.toFile().length()).sum();
        }
        store.stop();
        int kept = STORE_MESSAGES + 2_000;
        System.out.printf("retention: %d messages of %d bytes (snapshot every %d per match): CPU %.1f µs/message, wall %.1f µs/message,"
                        + " disk %d bytes/message retained (%d bytes in all, after pruning the odds before each snapshot)%n",
                STORE_MESSAGES, body("x", 1, "odds", "delta").length(), PER_MATCH, cpuNanos / 1e3 / STORE_MESSAGES,
                wallNanos / 1e3 / STORE_MESSAGES, bytes / kept, bytes);
    }

    @Test
    void recoveryOfManyMatches() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner().latency(LATENCY_MS);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.fixtures.auth.tokens", "bench-token")
                     .set("liveodds.heartbeat.interval", "1h")
                     .set("liveodds.upstream.max-silence", "0")
                     .set("camel.main.shutdown-timeout", "1")
                     .work(work).start()) {
            RetainedMessages store = service.bean("liveoddsRetainedMessages", RetainedMessages.class);
            Instant after = Instant.now().minusSeconds(1);
            fill(store, MATCHES * PER_MATCH, "rec");
            // the first of a fresh JVM, then one warm
            for (String run : List.of("cold", "warm")) {
                recover(service, after, run);
            }
        }
    }

    private static void recover(RunningService service, Instant after, String run) throws Exception {
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu = os.getProcessCpuTime();
        long wall = System.nanoTime();
        HttpResponse<String> asked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/liveodds/42/recovery"))
                .header("Authorization", "Bearer bench-token")
                .POST(HttpRequest.BodyPublishers.ofString("{\"after\":\"" + after + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
        long answeredNanos = System.nanoTime() - wall;
        ObjectMapper json = new ObjectMapper();
        String id = json.readTree(asked.body()).path("request_id").asText();
        JsonNode done = Awaitility.await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(20)).until(
                () -> json.readTree(service.request("GET", "/v1/liveodds/42/recovery/" + id, "Bearer bench-token").body()),
                s -> !s.path("state").asText().matches("queued|running"));
        long wallNanos = System.nanoTime() - wall;
        long cpuNanos = os.getProcessCpuTime() - cpu;
        System.out.printf("recovery (%s) of %d matches, %d messages, partner latency %d ms: answered 202 in %.0f ms, %s in %.2f s"
                        + " (%.0f messages/s), CPU of service + partner %.2f s (%.0f µs/message)%n",
                run, MATCHES, done.path("messages").asInt(), LATENCY_MS, answeredNanos / 1e6, done.path("state").asText(),
                wallNanos / 1e9, done.path("delivered").asInt() / (wallNanos / 1e9), cpuNanos / 1e9,
                cpuNanos / 1e3 / Math.max(1, done.path("delivered").asInt()));
    }

    @Test
    void pipelineWithRetentionOnAndOff() throws Exception {
        // twice each, alternating, the first of each a warm-up
        for (String retention : List.of("0", "10h", "0", "10h")) {
            Path dir = Files.createDirectories(work.resolve("pipeline-" + retention + "-" + System.nanoTime()));
            try (LoopbackPartner partner = new LoopbackPartner();
                 RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                         .set("liveodds.recovery.retention", retention)
                         // every message pushed, so that each run delivers all of them
                         .set("liveodds.delivery.supersede", "false")
                         .set("liveodds.heartbeat.interval", "1h")
                         .set("liveodds.upstream.max-silence", "0")
                         .set("camel.main.shutdown-timeout", "1")
                         .work(dir).start()) {
                Path inbox = Files.createDirectories(service.inbox());
                for (int i = 0; i < PIPELINE_MESSAGES; i++) {
                    String id = String.format("p%06d", i);
                    Files.writeString(inbox.resolve("." + id), body(id, i % MATCHES, "odds", i % 20 == 0 ? "snapshot" : "delta"));
                }
                var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long cpu = os.getProcessCpuTime();
                long wall = System.nanoTime();
                for (int i = 0; i < PIPELINE_MESSAGES; i++) {
                    String id = String.format("p%06d", i);
                    Files.move(inbox.resolve("." + id), inbox.resolve(id + ".json"));
                }
                Awaitility.await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(20))
                        .until(() -> partner.arrivals().size() >= PIPELINE_MESSAGES);
                long cpuNanos = os.getProcessCpuTime() - cpu;
                long wallNanos = System.nanoTime() - wall;
                System.out.printf("pipeline, retention %s: %d messages in %.2f s, CPU of service + partner %.0f µs/message%n",
                        retention, PIPELINE_MESSAGES, wallNanos / 1e9, cpuNanos / 1e3 / PIPELINE_MESSAGES);
            }
        }
    }

    /** {@code count} accepted pushes over {@link #MATCHES} matches, each match's own in a snapshot-deltas-settlements cycle. */
    private static void fill(RetainedMessages store, int count, String label) throws Exception {
        for (int i = 0; i < count; i++) {
            int match = i % MATCHES;
            int step = i / MATCHES % PER_MATCH;
            String type = step >= 7 ? "market_settlement" : "odds";
            String oddsType = step == 0 ? "snapshot" : "delta";
            String id = label + "-" + i;
            store.accepted(new Push(id, "match:" + (40_000_000 + match), type, body(id, match, type, oddsType), null,
                    Instant.now(), "odds".equals(type) ? oddsType : null));
        }
    }

    private static String body(String id, int match, String type, String oddsType) {
        return "{\"message_id\":\"" + id + "\",\"message_type\":\"" + type + "\",\"odds_type\":\"" + oddsType
                + "\",\"timestamp\":\"2026-11-21T20:15:03.123Z\",\"fight_metadata\":{\"fight_id\":\"" + match
                + "\",\"fight_id_sr\":\"match:" + (40_000_000 + match) + "\",\"card_id\":\"4412\",\"correction\":0},"
                + "\"markets\":[{\"id\":\"1\",\"status\":1,\"outcomes\":[{\"id\":\"1\",\"odds\":1.85,\"active\":true},"
                + "{\"id\":\"2\",\"odds\":2.10,\"active\":true}]},{\"id\":\"2\",\"status\":1,\"outcomes\":"
                + "[{\"id\":\"1\",\"odds\":1.50,\"active\":true},{\"id\":\"2\",\"odds\":2.60,\"active\":true}]}]}";
    }
}
