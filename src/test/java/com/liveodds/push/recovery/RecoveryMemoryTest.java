package com.liveodds.push.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RawPartner;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract 22, "a recovery holds memory bounded in bytes" and "live never waits for recovery", on the service process
 * with the contract's 384 MB heap: three partners ask at once for a match whose retained messages are 150 bodies of
 * nearly 1 MB (a full retention, 135 MB of it), while a fourth partner's live pushes flow. The recoveries complete,
 * the process stays up, and every live push of the fourth partner is delivered meanwhile. Its latency (upstream file
 * to partner) is printed, not asserted: the bench's to judge.
 */
class RecoveryMemoryTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final List<String> RECOVERING = List.of("a", "c", "d");
    private static final long BIG = 54001;
    private static final long LIVE = 54002;
    private static final int RETAINED = 150;

    @TempDir
    Path work;
    private final Map<String, RawPartner> partners = new ConcurrentHashMap<>();
    /** Partner → the message ids it was pushed, with when (nanoTime), in arrival order. */
    private final Map<String, ConcurrentLinkedQueue<long[]>> arrivalsAt = new ConcurrentHashMap<>();
    private final Map<String, ConcurrentLinkedQueue<String>> arrivals = new ConcurrentHashMap<>();

    @AfterEach
    void closePartners() {
        partners.values().forEach(RawPartner::close);
    }

    @Test
    void recoveriesOverAFullRetentionOfLargeBodiesCompleteInTheHeapWhileAnotherPartnersLivePushesFlow() throws Exception {
        Map<String, String> settings = ServiceProcess.settings("http://unused", "http://unused", work);
        List.of("liveodds.partner.id", "liveodds.partner.base-url", "liveodds.partner.auth-url", "liveodds.partner.client-id",
                "liveodds.partner.client-secret").forEach(settings::remove);
        settings.put("liveodds.partners", "a,b,c,d");
        for (String name : List.of("a", "b", "c", "d")) {
            RawPartner partner = new RawPartner((request, socket, out) -> answer(name, request, out)).keepingNoRequests();
            partners.put(name, partner);
            arrivals.put(name, new ConcurrentLinkedQueue<>());
            arrivalsAt.put(name, new ConcurrentLinkedQueue<>());
            String key = "liveodds.partners." + name + ".";
            settings.put(key + "id", Integer.toString(600 + name.charAt(0)));
            settings.put(key + "base-url", partner.baseUrl() + "/partner");
            settings.put(key + "auth-url", partner.baseUrl() + "/auth");
            settings.put(key + "client-id", "client-" + name);
            settings.put(key + "client-secret", "secret-of-" + name);
            settings.put(key + "fixtures-tokens", "token-of-" + name);
        }
        Files.writeString(work.resolve("booking-b.txt"), "match:" + LIVE + "\n");
        settings.put("liveodds.partners.b.booking", work.resolve("booking-b.txt").toString());
        settings.put("liveodds.heartbeat.interval", "1h");
        Path inbox = Files.createDirectories(work.resolve("inbox"));

        // nearly 1 MB each (the file source's limit is 1 MB): a snapshot and the odds after it, all of them current odds
        String padding = "x".repeat(900 * 1024);
        List<String> big = new ArrayList<>();
        for (int i = 0; i < RETAINED; i++) {
            String id = String.format("big-%03d", i);
            big.add(id);
            String message = Messages.odds(id, Messages.external("f-big", BIG)).replace("\"odds_type\":\"delta\"",
                    "\"odds_type\":\"" + (i == 0 ? "snapshot" : "delta") + "\",\"padding\":\"" + padding + "\"");
            RunningService.drop(inbox, String.format("0-%03d.json", i), message);
        }

        try (ServiceProcess service = ServiceProcess.start(settings, work.resolve("service.log"), "384m")) {
            int port = Integer.parseInt(settings.get("camel.server.port"));
            await().atMost(Duration.ofSeconds(180)).until(() -> RECOVERING.stream().allMatch(p -> arrivals.get(p).size() >= RETAINED));

            for (String name : RECOVERING) {
                HttpResponse<String> asked = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/v1/liveodds/" + (600 + name.charAt(0)) + "/recovery")).header("Authorization", "Bearer token-of-" + name)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"match\":\"match:" + BIG + "\",\"request_id\":\"full-" + name + "\"}"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
                assertThat(JSON.readTree(asked.body()).path("messages").asInt()).isEqualTo(RETAINED);
            }
            // b's live pushes while the recoveries read and push: each one delivered
            Map<String, Long> droppedAt = new ConcurrentHashMap<>();
            List<String> live = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                String id = String.format("live-%03d", i);
                live.add(id);
                droppedAt.put(id, System.nanoTime());
                RunningService.drop(inbox, String.format("1-%03d.json", i), Messages.odds(id, Messages.external("f-live", LIVE)));
                Thread.sleep(50); // the upstream's pace: a message every 50 ms
            }
            await().atMost(Duration.ofSeconds(120)).until(() -> arrivals.get("b").containsAll(live));
            for (String name : RECOVERING) {
                JsonNode[] status = new JsonNode[1];
                await().atMost(Duration.ofSeconds(180)).until(() -> {
                    status[0] = JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/liveodds/"
                            + (600 + name.charAt(0)) + "/recovery/full-" + name)).header("Authorization", "Bearer token-of-" + name)
                            .build(), HttpResponse.BodyHandlers.ofString()).body());
                    return List.of("complete", "failed").contains(status[0].path("state").asText());
                });
                assertThat(status[0].path("state").asText()).as(status[0].toString()).isEqualTo("complete");
                assertThat(status[0].path("delivered").asInt()).isEqualTo(RETAINED);
                assertThat(arrivals.get(name).stream().filter(big::contains)).hasSize(2 * RETAINED);
            }
            assertThat(service.isAlive()).as(service.log()).isTrue();
            assertThat(service.log()).doesNotContain("OutOfMemoryError");

            List<Long> latencies = arrivalsAt.get("b").stream()
                    .map(a -> (a[1] - droppedAt.get(live.get((int) a[0]))) / 1_000_000).sorted().toList();
            System.out.printf("live pushes of b during 3 recoveries of %d x 900 KB: p50 %d ms, p99 %d ms, max %d ms%n",
                    RETAINED, latencies.get(latencies.size() / 2), latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1),
                    latencies.get(latencies.size() - 1));
        }
    }

    /** The token endpoint, and every push recorded (its Idempotency-Key; b's live ones with their time) and taken. */
    private boolean answer(String partner, RawPartner.Request request, OutputStream out) throws IOException, InterruptedException {
        if (request.path().startsWith("/auth/")) {
            return RawPartner.json(200, "{\"access_token\":\"t-" + partner + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}")
                    .answer(request, null, out);
        }
        String id = String.valueOf(request.header("Idempotency-Key"));
        arrivals.get(partner).add(id);
        if (id.startsWith("live-")) {
            arrivalsAt.get(partner).add(new long[] {Long.parseLong(id.substring(5)), System.nanoTime()});
        }
        byte[] answer = "HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                .getBytes(StandardCharsets.ISO_8859_1);
        out.write(answer);
        out.flush();
        return true;
    }
}
