package com.liveodds.push.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is retained for recovery survives a {@code kill -9}, also one in the middle of a recovery: the messages just
 * delivered (and so acknowledged to their source) before the kill are in the store, and a recovery asked of the
 * restarted service pushes every one of them again, in order.
 */
class RecoveryCrashTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final long MATCH = 41234567;

    @TempDir
    Path work;

    @Test
    void aKillDuringARecoveryLosesNothingRetained() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner()) {
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
            settings.put("liveodds.fixtures.auth.tokens", "crash-token");
            settings.put("liveodds.heartbeat.interval", "1h");
            Path inbox = work.resolve("inbox");
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String id = String.format("crash-%03d", i);
                ids.add(id);
                String type = i % 10 == 9 ? "market_settlement" : "odds";
                String oddsType = i == 0 ? "snapshot" : i % 10 == 9 ? null : "delta";
                Files.createDirectories(inbox);
                Files.writeString(inbox.resolve(id + ".json"), RecoveryTest.message(id, type, oddsType, MATCH));
            }
            try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"))) {
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(partner).containsAll(ids));
                // the last one is acknowledged (moved to .done) only after it was kept: nothing of it is lost to a kill
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(inbox.resolve(".done/crash-039.json")));
                partner.latency(200);
                int seen = partner.arrivals().size();
                HttpResponse<String> asked = recovery(settings);
                assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
                assertThat(RecoveryTest.JSON.readTree(asked.body()).path("messages").asInt()).isEqualTo(40);
                await().atMost(Duration.ofSeconds(30)).until(() -> partner.arrivals().size() >= seen + 3);
                first.kill();
            }
            partner.latency(0);
            // a push the killed process had on the wire can still be answered (and counted) after the kill: what the
            // second process pushes is what arrives after it starts
            long secondStarted = System.nanoTime();
            try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"))) {
                HttpResponse<String> asked = await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> recovery(settings), r -> r.statusCode() == 202);
                assertThat(RecoveryTest.JSON.readTree(asked.body()).path("messages").asInt()).isEqualTo(40);
                String id = RecoveryTest.JSON.readTree(asked.body()).path("request_id").asText();
                JsonNode done = await().atMost(Duration.ofSeconds(60)).until(() -> status(settings, id),
                        s -> s.path("state").asText().equals("complete"));
                assertThat(done.path("delivered").asInt()).isEqualTo(40);
                assertThat(partner.arrivals().stream().filter(a -> a.atNanos() > secondStarted)
                        .map(LoopbackPartner.Arrival::messageId)).containsExactlyElementsOf(ids);
            }
        }
    }

    private static List<String> delivered(LoopbackPartner partner) {
        return partner.arrivals().stream().map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static HttpResponse<String> recovery(Map<String, String> settings) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(api(settings, "/v1/liveodds/42/recovery"))
                .header("Authorization", "Bearer crash-token").timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"match\":\"match:" + MATCH + "\"}")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode status(Map<String, String> settings, String id) throws Exception {
        return RecoveryTest.JSON.readTree(HTTP.send(HttpRequest.newBuilder(api(settings, "/v1/liveodds/42/recovery/" + id))
                .header("Authorization", "Bearer crash-token").timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private static URI api(Map<String, String> settings, String path) {
        return URI.create("http://127.0.0.1:" + settings.get("camel.server.port") + path);
    }
}
