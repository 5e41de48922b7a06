package com.liveodds.push.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.TwoPartners;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract 22, "Recovery and dead letters are bounded", on a running service with two real partners on loopback: a
 * partner that refuses everything and asks for recovery again and again finds each refusal counted in its recovery,
 * not a new dead letter each time; a partner's dead letters stop at liveodds.dead-letter.max-per-partner, where the
 * pushes it refuses are held, neither dropped nor acknowledged, and the others go on; the listing is paged.
 */
class DeadLetterBoundsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String ADMIN = "Bearer db-admin";

    @TempDir
    Path work;

    @Test
    void aRefusingPartnerAskingForRecoveryAgainAndAgainHasItsRefusalsCountedNotDeadLetteredEachTime() throws Exception {
        try (TwoPartners partners = new TwoPartners("db-a-token", "db-b-token");
             RunningService service = partners.service(work).set("liveodds.admin.tokens", "db-admin").start()) {
            partners.a.refusing(path -> true);
            List<String> ids = IntStream.range(0, 8).mapToObj(i -> "refused-" + i).toList();
            ids.forEach(id -> service.drop(id + ".json", Messages.odds(id, Messages.external("f1", 51001))));
            await().atMost(Duration.ofSeconds(30)).until(() -> service.deadLetterCount() == ids.size()
                    && delivered(partners.b).containsAll(ids));

            for (int i = 0; i < 5; i++) {
                HttpResponse<String> asked = recovery(service, "101", "db-a-token", "{\"match\":\"match:51001\",\"request_id\":\"again-" + i + "\"}");
                assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
                JsonNode done = awaitEnd(service, "again-" + i);
                assertThat(done.path("state").asText()).isEqualTo("complete");
                assertThat(done.path("refused").asInt()).as(done.toString()).isEqualTo(ids.size());
                assertThat(done.path("delivered").asInt()).isZero();
            }
            // 5 x 8 recovered pushes refused: the 8 dead letters of the live pushes, no more
            assertThat(service.deadLetterCount()).isEqualTo(ids.size());
            assertThat(partners.a.arrivals().stream().filter(r -> !r.isHeartbeat())).hasSize(6 * ids.size());
        }
    }

    @Test
    void atItsBoundAPartnerIsPausedItsPushesHeldNotDroppedWhileTheOtherPartnerGoesOn() throws Exception {
        try (TwoPartners partners = new TwoPartners("db-a-token", "db-b-token");
             RunningService service = partners.service(work).set("liveodds.admin.tokens", "db-admin")
                     .set("liveodds.dead-letter.max-per-partner", "3")
                     .set("liveodds.delivery.backoff.max", "500ms")
                     .start()) {
            partners.b.refusing(path -> true);
            List<String> ids = IntStream.range(0, 6).mapToObj(i -> "bound-" + i).toList();
            // one match each: a held push holds back its own match only
            for (int i = 0; i < ids.size(); i++) {
                service.drop(ids.get(i) + ".json", Messages.odds(ids.get(i), Messages.external("f" + i, 52000 + i)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partners.a).containsAll(ids)
                    && service.deadLetterCount() == 3);
            // at the bound b is paused: the pushes over it are neither dead-lettered nor acknowledged, nor tried again
            await().atMost(Duration.ofSeconds(30)).until(() -> service.management("/observe/metrics").body()
                    .contains("liveodds_partner_paused{partner=\"b\"} 1.0"));
            int triedBefore = partners.b.arrivals().size();
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> partners.b.arrivals().size() == triedBefore);
            assertThat(service.deadLetterCount()).isEqualTo(3);
            assertThat(jsonFiles(service.inbox())).as("their files wait in the inbox for b").hasSize(3);
            String metrics = service.management("/observe/metrics").body();
            assertThat(metrics).contains("liveodds_dead_letters{partner=\"b\"} 3.0", "liveodds_dead_letters{partner=\"a\"} 0.0",
                    "liveodds_dead_letters_limit{partner=\"b\"} 3.0", "liveodds_partner_paused{partner=\"a\"} 0.0");

            // the listing is paged, oldest first, and only the page is read
            JsonNode first = list(service, "?limit=2");
            assertThat(first).hasSize(2);
            JsonNode rest = list(service, "?limit=2&after=" + first.get(1).path("id").asText());
            assertThat(rest).hasSize(1);
            assertThat(List.of(first.get(0).path("id").asText(), first.get(1).path("id").asText(), rest.get(0).path("id").asText()))
                    .isSorted().allMatch(id -> id.endsWith("@b.json"));
            assertThat(list(service, "")).hasSize(3);
            assertThat(service.request("GET", "/admin/dead-letters?limit=0", ADMIN).statusCode()).isEqualTo(400);
            assertThat(service.request("GET", "/admin/dead-letters?limit=x", ADMIN).statusCode()).isEqualTo(400);

            // b takes pushes again, is resumed and its dead letters are replayed: the held pushes are delivered, nothing
            // was lost
            partners.b.refusing(path -> false);
            assertThat(service.request("POST", "/admin/partners/b/resume", ADMIN).statusCode()).isEqualTo(200);
            assertThat(service.request("POST", "/admin/dead-letters/replay", ADMIN).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partners.b).containsAll(ids)
                    && jsonFiles(service.inbox()).isEmpty());
            assertThat(service.deadLetterCount()).isZero();
        }
    }

    private static List<String> delivered(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> r.status() == 202).map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static List<Path> jsonFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).toList();
        }
    }

    private static JsonNode list(RunningService service, String query) throws Exception {
        HttpResponse<String> listing = service.request("GET", "/admin/dead-letters" + query, ADMIN);
        assertThat(listing.statusCode()).as(listing.body()).isEqualTo(200);
        return JSON.readTree(listing.body());
    }

    private static HttpResponse<String> recovery(RunningService service, String partnerId, String token, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/liveodds/" + partnerId
                + "/recovery")).header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode awaitEnd(RunningService service, String requestId) {
        JsonNode[] status = new JsonNode[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            status[0] = JSON.readTree(service.request("GET", "/v1/liveodds/101/recovery/" + requestId, "Bearer db-a-token").body());
            return List.of("complete", "failed").contains(status[0].path("state").asText());
        });
        return status[0];
    }
}
