package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operations with two partners (contract 16, "Per partner in operations"): partner b refuses every push for a while.
 * An operator sees it per partner everywhere: metrics labelled partner, /admin/status and its partners, the dead
 * letters that are b's and replay to b only (a rejected message, once its match resolves, to both), readiness UP
 * while a still takes pushes and DOWN, naming both, once neither does.
 */
class PartnerOperationsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ADMIN = "Bearer ops-partners-admin";
    /** Meters of a partner's beans: each of their series must carry the partner label. */
    private static final List<String> PARTNER_METRICS = List.of("liveodds_pushes_delivered_total", "liveodds_pushes_retried_total",
            "liveodds_pushes_dead_lettered_total", "liveodds_heartbeats_delivered_total", "liveodds_heartbeats_failed_total",
            "liveodds_push_latency_seconds", "liveodds_push_attempt_seconds", "liveodds_backlog_messages",
            "liveodds_oldest_undelivered_seconds", "liveodds_live_matches", "liveodds_matches_retrying",
            "liveodds_messages_superseded_total", "liveodds_token_expires_in_seconds", "liveodds_heartbeat_lateness_seconds",
            "liveodds_partner_up", "liveodds_messages_not_booked_total");

    @Test
    void eachPartnerIsSeenAndReplayedOnItsOwn(@TempDir Path work) throws Exception {
        Path mapping = work.resolve("fight-mapping.csv");
        Files.writeString(mapping, "fight_id,match_id\n");
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner().failing(path -> true);
             RunningService service = RunningService.builder()
                     .partner("a", "101", a.baseUrl(), a.authUrl())
                     .partner("b", "202", b.baseUrl(), b.authUrl())
                     .set("liveodds.admin.tokens", "ops-partners-admin")
                     .set("liveodds.partner.down-after", "1s")
                     .set("liveodds.delivery.max-elapsed", "3s")
                     .set("liveodds.delivery.backoff.max", "500ms")
                     .set("liveodds.heartbeat.interval", "1s")
                     .set("liveodds.mapping.file", mapping.toString())
                     .work(work)
                     .start()) {
            service.drop("m-001.json", Messages.odds("one", Messages.external("1", 501)));
            service.drop("m-002.json", Messages.odds("two", Messages.external("2", 502)));
            // no match id to be had: rejected, and no partner's
            service.drop("m-003.json", Messages.odds("unmapped", "{\"fight_id\":\"zz\"}"));

            // b refuses: its pushes are dead-lettered as b's, while a has them and sends heartbeats
            await().atMost(Duration.ofSeconds(30)).until(() -> service.deadLetterCount() == 3
                    && ids(a).containsAll(List.of("one", "two")) && heartbeats(a) > 0);
            assertThat(service.deadLetterEntries()).filteredOn(l -> "undeliverable".equals(l.path("kind").asText()))
                    .hasSize(2).allSatisfy(l -> assertThat(l.path("partner").asText()).isEqualTo("b"));
            assertThat(service.deadLetterEntries()).filteredOn(l -> "rejected".equals(l.path("kind").asText()))
                    .singleElement().satisfies(l -> assertThat(l.has("partner")).isFalse());
            JsonNode listing = JSON.readTree(service.request("GET", "/admin/dead-letters", ADMIN).body());
            assertThat(listing).extracting(l -> l.path("partner").asText(null)).containsExactlyInAnyOrder("b", "b", null);
            assertThat(listing).filteredOn(l -> "rejected".equals(l.path("kind").asText()))
                    .singleElement().satisfies(l -> assertThat(l.has("partner")).as("no partner: not listed as null").isFalse());

            // metrics: every series of a partner's meters names its partner
            await().atMost(Duration.ofSeconds(30)).until(() -> metrics(service).contains("liveodds_partner_up{partner=\"b\"} 0.0"));
            String metrics = metrics(service);
            List<String> unlabelled = new ArrayList<>();
            for (String line : metrics.split("\n")) {
                if (PARTNER_METRICS.stream().anyMatch(line::startsWith) && !line.contains("partner=\"")) {
                    unlabelled.add(line);
                }
            }
            assertThat(unlabelled).as("series of a partner's meters without the label partner").isEmpty();
            assertThat(metrics)
                    .containsPattern("liveodds_pushes_delivered_total\\{partner=\"a\"} 2\\.0")
                    .containsPattern("liveodds_pushes_dead_lettered_total\\{partner=\"b\"} 2\\.0")
                    .containsPattern("liveodds_push_attempt_seconds_count\\{outcome=\"5xx\",partner=\"b\"} [1-9]")
                    .containsPattern("liveodds_push_latency_seconds_count\\{partner=\"a\",type=\"odds\"} 2")
                    .containsPattern("liveodds_heartbeat_lateness_seconds_count\\{partner=\"a\"} [1-9]")
                    .containsPattern("liveodds_token_expires_in_seconds\\{partner=\"a\"} [1-9]")
                    .containsPattern("liveodds_backlog_messages\\{partner=\"b\"} 0")
                    .contains("liveodds_partner_up{partner=\"a\"} 1.0")
                    .contains("liveodds_messages_superseded_total{partner=\"b\"} 0.0");

            // status: each partner, the service's side of them all in the single partner's shape
            JsonNode status = status(service);
            assertThat(fieldNames(status.path("partner")))
                    .containsExactly("state", "last_success", "last_failure", "last_error", "token_expires_in_s");
            assertThat(status.at("/partner/state").asText()).as("a still takes pushes").isEqualTo("UP");
            assertThat(status.at("/partner/last_error").asText()).isEqualTo("b: HTTP 503");
            JsonNode partners = status.path("partners");
            assertThat(partners).extracting(p -> p.path("name").asText()).containsExactly("a", "b");
            assertThat(partners).extracting(p -> p.path("id").asText()).containsExactly("101", "202");
            assertThat(partners).extracting(p -> p.path("state").asText()).containsExactly("UP", "DOWN");
            assertThat(partners.get(0).path("token_expires_in_s").asDouble()).isBetween(3000.0, 3600.0);
            assertThat(partners.get(1).path("last_error").asText()).isEqualTo("HTTP 503");
            assertThat(partners.get(0).path("booking").asText()).isEqualTo("all");
            assertThat(partners.get(0).path("live_matches").asInt()).isEqualTo(2);
            assertThat(partners.get(0).at("/totals/delivered").asLong()).isEqualTo(2);
            assertThat(partners.get(1).at("/totals/delivered").asLong()).isZero();
            assertThat(partners.get(1).at("/totals/dead_lettered").asLong()).isEqualTo(2);
            assertThat(status.at("/totals/delivered").asLong()).isEqualTo(2);
            assertThat(status.at("/totals/rejected").asLong()).isEqualTo(1);
            assertThat(status.path("matches")).extracting(m -> m.path("partner").asText() + " " + m.path("match_id").asText())
                    .contains("a match:501", "a match:502");
            assertThat(status.at("/dead_letters/newest")).extracting(l -> l.path("partner").asText(null))
                    .containsExactlyInAnyOrder("b", "b", null);
            assertThat(status.toString()).doesNotContain("secret-of-a", "secret-of-b", "loopback-token", "ops-partners-admin");

            // readiness: one partner down is not the service down
            assertThat(service.management("/observe/health").statusCode()).isEqualTo(200);

            // b is back: its dead letters go to b alone, the rejected message (its match now mapped) to both
            b.failing(path -> false);
            Files.writeString(mapping, "fight_id,match_id\nzz,match:503\n");
            JsonNode replay = JSON.readTree(service.request("POST", "/admin/dead-letters/replay", ADMIN).body());
            assertThat(replay.path("delivered").asInt()).isEqualTo(3);
            assertThat(service.deadLetterCount()).isZero();
            assertThat(ids(b)).contains("one", "two", "unmapped");
            assertThat(ids(a)).containsExactlyInAnyOrder("one", "two", "unmapped");
            assertThat(a.arrivals()).filteredOn(r -> "unmapped".equals(r.messageId()))
                    .singleElement().satisfies(r -> assertThat(r.path()).isEqualTo("/partner/v1/liveodds/101/match:503/odds"));
            assertThat(b.arrivals()).filteredOn(r -> "unmapped".equals(r.messageId()) && r.status() == 202)
                    .singleElement().satisfies(r -> assertThat(r.path()).isEqualTo("/partner/v1/liveodds/202/match:503/odds"));

            // a letter of a partner no longer configured (or a hand-edited one) stays in the store, and goes nowhere
            Path stray = service.deadLetters().resolve("20200101T000000000Z-00000001-stray.json");
            Files.writeString(stray, "{\"kind\":\"undeliverable\",\"partner\":\"gone\\nFAKE LOG LINE\",\"message_id\":\"stray\","
                    + "\"match_id\":\"match:501\",\"body\":" + Messages.odds("stray", Messages.external("1", 501)) + "}");
            JsonNode strayReplay = JSON.readTree(service.request("POST", "/admin/dead-letters/replay?id=stray", ADMIN).body());
            assertThat(strayReplay.path("notRun").asInt()).isEqualTo(1);
            assertThat(stray).exists();
            assertThat(ids(a)).doesNotContain("stray");
            assertThat(ids(b)).doesNotContain("stray");
            Files.delete(stray);

            // both refuse: now readiness is DOWN, and names both
            a.failing(path -> true);
            b.failing(path -> true);
            service.drop("m-004.json", Messages.odds("three", Messages.external("1", 501)));
            await().atMost(Duration.ofSeconds(20)).until(() -> service.management("/observe/health").statusCode() == 503);
            String health = service.management("/observe/health").body();
            assertThat(health).contains("\"name\":\"partner\"").contains("\"status\":\"DOWN\"")
                    .contains("every partner is down: a (").contains("; b (").contains("last error: HTTP 503");
            assertThat(service.management("/observe/health/live").statusCode()).as("liveness stays up").isEqualTo(200);
            assertThat(status(service).at("/partner/state").asText()).isEqualTo("DOWN");
        }
    }

    private static List<String> ids(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat() && r.status() == 202).map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static long heartbeats(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(LoopbackPartner.Arrival::isHeartbeat).count();
    }

    private static String metrics(RunningService service) throws Exception {
        return service.management("/observe/metrics").body();
    }

    private static JsonNode status(RunningService service) throws Exception {
        var response = service.request("GET", "/admin/status", ADMIN);
        assertThat(response.statusCode()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
