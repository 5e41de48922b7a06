package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of messages over many matches through a partner that fails in every way we know. Every message must
 * end delivered or dead-lettered by rule, each match in input order, and replay must deliver the dead letters.
 */
class FaultInjectionTest {

    private static final int MESSAGES = 2400;
    private static final int MATCHES = 60;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyMessageIsDeliveredInOrderOrDeadLetteredByRule(@TempDir Path work) throws Exception {
        FaultyPartner partner = new FaultyPartner(MESSAGES / 3, 2000);
        Map<String, List<String>> expectedByMatch = new LinkedHashMap<>();
        Set<String> bad = new HashSet<>();
        Files.createDirectories(work.resolve("inbox"));
        for (int i = 0; i < MESSAGES; i++) {
            int match = i % MATCHES;
            String id = String.format("f%05d", i) + (i % 97 == 13 ? "-bad" : "");
            if (id.endsWith("-bad")) {
                bad.add(id);
            } else {
                expectedByMatch.computeIfAbsent("/partner/v1/liveodds/42/match:" + (8000 + match) + "/odds", k -> new ArrayList<>()).add(id);
            }
            Files.writeString(work.resolve("inbox").resolve(id + ".json"), Messages.odds(id, Messages.external(Integer.toString(match), 8000 + match)));
        }
        long started = System.nanoTime();
        try (RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                // below the partner's 1.5 s stalls, well above what a loaded 2-core machine takes to answer a 422 (at
                // 500 ms a 422 answered late was cut off and tried again, so the partner answered it twice)
                .set("liveodds.delivery.timeout", "1s")
                .set("liveodds.delivery.max-elapsed", "60s")
                .set("liveodds.admin.tokens", "ops-token")
                .start()) {
            Set<String> expectedDelivered = expectedByMatch.values().stream().flatMap(List::stream).collect(Collectors.toSet());
            await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(500)).until(() ->
                    acceptedIds(partner).containsAll(expectedDelivered) && service.deadLetterCount() == bad.size());
            double seconds = (System.nanoTime() - started) / 1e9;

            List<FaultyPartner.Accepted> accepted = partner.accepted();
            Map<String, List<String>> deliveredByMatch = new LinkedHashMap<>();
            for (FaultyPartner.Accepted a : accepted) {
                deliveredByMatch.computeIfAbsent(a.path(), k -> new ArrayList<>()).add(a.messageId());
            }
            int orderViolations = 0;
            for (Map.Entry<String, List<String>> e : expectedByMatch.entrySet()) {
                if (!CrashAndShutdownTest.collapseRepeats(deliveredByMatch.get(e.getKey())).equals(e.getValue())) {
                    orderViolations++;
                }
            }
            List<JsonNode> letters = service.deadLetterEntries();
            System.out.printf("fault suite: %d messages over %d matches in %.1f s; accepted %d (repeats %d); dead letters %d; "
                            + "order violations %d; faults %s%n", MESSAGES, MATCHES, seconds, accepted.size(),
                    accepted.size() - expectedDelivered.size(), letters.size(), orderViolations, partner.faults);

            assertThat(orderViolations).isZero();
            assertThat(letters).extracting(l -> l.path("message_id").asText()).containsExactlyInAnyOrderElementsOf(bad);
            assertThat(letters).allSatisfy(l -> {
                assertThat(l.path("reason").asText()).isEqualTo("HTTP 422 is not retryable");
                assertThat(l.path("last_status").asInt()).isEqualTo(422);
                // a 422 is dead-lettered at once: the partner answered it once (a 401 or a token outage before it may
                // have cost earlier attempts, which never reached the 422)
                assertThat(partner.answersPast401(l.path("message_id").asText())).isEqualTo(1);
                assertThat(l.path("attempts").asInt()).isPositive();
                assertThat(l.path("match_id").asText()).startsWith("match:");
                assertThat(l.path("body").path("message_id").asText()).isEqualTo(l.path("message_id").asText());
            });
            assertThat(partner.faults).containsKeys("500", "429 Retry-After 1", "stall", "connection reset", "401", "token endpoint 503");

            partner.acceptBadMessages();
            String listing = service.request("GET", "/admin/dead-letters", "Bearer ops-token").body();
            assertThat(JSON.readTree(listing)).hasSize(bad.size());
            assertThat(service.request("POST", "/admin/dead-letters/replay", "Bearer wrong-token").statusCode()).isEqualTo(401);
            String oneMatch = letters.get(0).path("match_id").asText();
            long ofThatMatch = letters.stream().filter(l -> oneMatch.equals(l.path("match_id").asText())).count();
            JsonNode first = JSON.readTree(service.request("POST", "/admin/dead-letters/replay?match=" + oneMatch, "Bearer ops-token").body());
            assertThat(first.path("delivered").asLong()).isEqualTo(ofThatMatch);
            HttpResponse<String> replay = service.request("POST", "/admin/dead-letters/replay", "Bearer ops-token");
            assertThat(replay.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(replay.body()).path("delivered").asLong()).isEqualTo(bad.size() - ofThatMatch);
            assertThat(service.deadLetterCount()).isZero();
            assertThat(acceptedIds(partner)).containsAll(bad);
        } finally {
            partner.shutdown();
        }
    }


    private static Set<String> acceptedIds(FaultyPartner partner) {
        return partner.accepted().stream().map(FaultyPartner.Accepted::messageId).collect(Collectors.toSet());
    }

}
