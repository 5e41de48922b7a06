package com.liveodds.push.delivery;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract 17 against the real service and a partner on loopback that is down for a while: an odds snapshot
 * supersedes the odds of its match queued before it, and nothing else.
 */
class SupersedeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ADMIN = "Bearer ops-token";
    private static final String SETTLEMENT = "market_settlement";
    private static final String ROLLBACK = "rollback_settlement";

    @TempDir
    Path work;
    private final LoopbackPartner partner = newPartner();

    @AfterEach
    void closePartner() {
        partner.close();
    }

    @Test
    void aSnapshotSupersedesTheOddsQueuedBeforeItAndKeepsSettlementsAndRollbacksInOrder() throws Exception {
        partner.failing(path -> true);
        try (RunningService service = service(true)) {
            // match 9501: deltas with a settlement and a rollback between them; match 9502 gets no snapshot
            drop(service, 9501, "a01", "delta");
            drop(service, 9502, "b01", "delta");
            await().atMost(Duration.ofSeconds(30)).until(() -> partner.arrivals().size() >= 2);
            drop(service, 9501, "a02", "delta");
            drop(service, 9501, "a03", SETTLEMENT);
            drop(service, 9501, "a04", "deactivation");
            drop(service, 9501, "a05", ROLLBACK);
            drop(service, 9501, "a06", "delta");
            drop(service, 9502, "b02", "delta");
            drop(service, 9502, "b03", SETTLEMENT);
            drop(service, 9502, "b04", "delta");
            await().atMost(Duration.ofSeconds(30)).until(() -> backlog(service, "match:9501") == 6 && backlog(service, "match:9502") == 4);

            drop(service, 9501, "a07", "snapshot");
            // at once, the partner still down: the earlier odds are acknowledged (moved to .done) and leave the backlog;
            // a01 was waiting out a back-off, a02, a04 and a06 were queued
            await().atMost(Duration.ofSeconds(5)).until(() -> acknowledged(service, "a01", "a02", "a04", "a06"));
            assertThat(backlog(service, "match:9501")).as("a03, a05 and the snapshot").isEqualTo(3);
            assertThat(pending(service, "a03", "a05", "a07", "b01", "b02", "b03", "b04")).as("still held by the source").isTrue();
            assertThat(MetricsScrape.of(service).value("liveodds_messages_superseded_total")).isEqualTo(4.0);
            assertThat(totals(service).path("superseded").asLong()).isEqualTo(4);
            int a01Attempts = attemptsOf("a01");
            drop(service, 9501, "a08", SETTLEMENT);
            drop(service, 9501, "a09", "delta");
            drop(service, 9501, "a10", "delta");

            partner.failing(path -> false);
            await().atMost(Duration.ofSeconds(60)).until(() -> accepted("match:9501").size() == 6 && accepted("match:9502").size() == 4);
            assertThat(accepted("match:9501")).containsExactly("a03", "a05", "a07", "a08", "a09", "a10");
            assertThat(accepted("match:9502")).as("no snapshot, nothing lost").containsExactly("b01", "b02", "b03", "b04");
            assertThat(partner.arrivals()).extracting(LoopbackPartner.Arrival::messageId).doesNotContain("a02", "a04", "a06");
            assertThat(attemptsOf("a01")).as("never pushed again once superseded").isEqualTo(a01Attempts);
            await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged(service, "a03", "a05", "a07", "a08", "a09", "a10", "b04"));
            assertThat(service.deadLetterCount()).as("a superseded message is no dead letter").isZero();
            assertThat(totals(service).path("superseded").asLong()).isEqualTo(4);
            assertThat(totals(service).path("delivered").asLong()).isEqualTo(10);
            await().atMost(Duration.ofSeconds(5)).until(() -> MetricsScrape.of(service).value("liveodds_backlog_messages") == 0
                    && MetricsScrape.of(service).value("liveodds_oldest_undelivered_seconds") == 0);
        }
    }

    @Test
    void switchedOffEveryMessageIsPushedInOrder() throws Exception {
        partner.failing(path -> true);
        try (RunningService service = service(false)) {
            drop(service, 9511, "c01", "delta");
            await().atMost(Duration.ofSeconds(30)).until(() -> !partner.arrivals().isEmpty());
            drop(service, 9511, "c02", "delta");
            drop(service, 9511, "c03", "snapshot");
            drop(service, 9511, "c04", "delta");
            await().atMost(Duration.ofSeconds(30)).until(() -> backlog(service, "match:9511") == 4);
            partner.failing(path -> false);
            await().atMost(Duration.ofSeconds(60)).until(() -> accepted("match:9511").size() == 4);
            assertThat(accepted("match:9511")).containsExactly("c01", "c02", "c03", "c04");
            assertThat(MetricsScrape.of(service).value("liveodds_messages_superseded_total")).isZero();
            assertThat(totals(service).path("superseded").asLong()).isZero();
        }
    }

    /** The HTTP source answers each superseded request 202 at once, the partner still down; the snapshot's waits. */
    @Test
    void theHttpSourceAnswersASupersededMessage202() throws Exception {
        partner.failing(path -> true);
        try (RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                .set("liveodds.source", "http")
                .set("liveodds.fixtures.auth.mode", "static")
                .set("liveodds.fixtures.auth.tokens", "ingest-token")
                .set("liveodds.admin.tokens", "ops-token")
                .set("liveodds.upstream.max-silence", "0")
                .start()) {
            CompletableFuture<HttpResponse<String>> first = ingest(service, odds("h01", 9521, "delta"));
            await().atMost(Duration.ofSeconds(30)).until(() -> !partner.arrivals().isEmpty());
            CompletableFuture<HttpResponse<String>> second = ingest(service, odds("h02", 9521, "delta"));
            CompletableFuture<HttpResponse<String>> settlement = ingest(service, Messages.message(SETTLEMENT, "h03", Messages.external("1", 9521)));
            await().atMost(Duration.ofSeconds(5)).until(() -> backlog(service, "match:9521") == 3);
            CompletableFuture<HttpResponse<String>> snapshot = ingest(service, odds("h04", 9521, "snapshot"));

            for (CompletableFuture<HttpResponse<String>> superseded : List.of(first, second)) {
                HttpResponse<String> answer = superseded.get(5, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(answer.statusCode()).isEqualTo(202);
                assertThat(JSON.readTree(answer.body()).path("status").asText()).isEqualTo("superseded");
            }
            assertThat(settlement).as("a settlement is never superseded").isNotDone();
            assertThat(snapshot).as("held until delivered").isNotDone();

            partner.failing(path -> false);
            assertThat(JSON.readTree(settlement.get(60, java.util.concurrent.TimeUnit.SECONDS).body()).path("status").asText()).isEqualTo("delivered");
            assertThat(JSON.readTree(snapshot.get(10, java.util.concurrent.TimeUnit.SECONDS).body()).path("status").asText()).isEqualTo("delivered");
            assertThat(accepted("match:9521")).containsExactly("h03", "h04");
        }
    }

    /**
     * A push on the wire finishes its attempt; failed (here a 422 that would dead-letter it), it is superseded instead,
     * and the snapshot follows it.
     */
    @Test
    void aPushThatFailsOnTheWireAfterASnapshotCameInIsSupersededNotDeadLettered() throws Exception {
        try (WireMockPartner wire = new WireMockPartner().acceptingEverything();
             RunningService service = RunningService.builder().partner(wire.baseUrl(), wire.authUrl()).work(work)
                     .set("liveodds.admin.tokens", "ops-token")
                     .set("liveodds.upstream.max-silence", "0")
                     .start()) {
            wire.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).withHeader("Idempotency-Key", equalTo("w01"))
                    .atPriority(1).willReturn(aResponse().withStatus(422).withFixedDelay(1500)));
            drop(service, 9541, "w01", "delta");
            // last_push_at is set when the attempt goes out; its answer takes 1.5 s
            await().atMost(Duration.ofSeconds(30)).until(() -> match(service, "match:9541").path("last_push_at").isTextual());
            assertThat(match(service, "match:9541").path("attempts").asInt()).as("not answered yet").isZero();
            drop(service, 9541, "w02", "snapshot");
            await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged(service, "w01", "w02"));
            assertThat(wire.pushes()).extracting(r -> r.getHeader("Idempotency-Key")).containsExactly("w01", "w02");
            assertThat(service.deadLetterCount()).isZero();
            assertThat(totals(service).path("superseded").asLong()).isEqualTo(1);
            assertThat(totals(service).path("dead_lettered").asLong()).isZero();
        }
    }

    /** kill -9 during the outage, after the supersede: what was not superseded is still with the source. */
    @Test
    void afterAHardKillNothingIsLostThatWasNotSuperseded() throws Exception {
        partner.failing(path -> true);
        Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
        settings.put("liveodds.upstream.max-silence", "0");
        Path inbox = work.resolve("inbox");
        try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"))) {
            RunningService.drop(inbox, "k01.json", odds("k01", 9531, "delta"));
            await().atMost(Duration.ofSeconds(30)).until(() -> !partner.arrivals().isEmpty());
            RunningService.drop(inbox, "k02.json", odds("k02", 9531, "delta"));
            RunningService.drop(inbox, "k03.json", Messages.message(SETTLEMENT, "k03", Messages.external("1", 9531)));
            RunningService.drop(inbox, "k04.json", odds("k04", 9531, "delta"));
            RunningService.drop(inbox, "k05.json", odds("k05", 9531, "snapshot"));
            RunningService.drop(inbox, "k06.json", odds("k06", 9531, "delta"));
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(inbox.resolve(".done/k01.json"))
                    && Files.exists(inbox.resolve(".done/k02.json")) && Files.exists(inbox.resolve(".done/k04.json")));
            first.kill();
        }
        for (String held : List.of("k03", "k05", "k06")) {
            assertThat(inbox.resolve(held + ".json")).as("not acknowledged before the kill").exists();
        }
        partner.failing(path -> false);
        try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> accepted("match:9531").size() >= 3);
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(inbox.resolve(".done/k06.json")));
        }
        assertThat(accepted("match:9531")).containsExactly("k03", "k05", "k06");
    }

    private RunningService service(boolean supersede) {
        return RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                .set("liveodds.delivery.supersede", Boolean.toString(supersede))
                .set("liveodds.admin.tokens", "ops-token")
                .set("liveodds.upstream.max-silence", "0")
                .start();
    }

    private static LoopbackPartner newPartner() {
        try {
            return new LoopbackPartner();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** An odds message of the given odds_type, or a settlement or rollback. */
    private static void drop(RunningService service, long matchId, String id, String kind) {
        String meta = Messages.external(Long.toString(matchId % 100), matchId);
        String body = kind.contains("settlement") ? Messages.message(kind, id, meta) : odds(id, matchId, kind);
        service.drop(id + ".json", body);
    }

    private static String odds(String id, long matchId, String oddsType) {
        return Messages.odds(id, Messages.external(Long.toString(matchId % 100), matchId))
                .replace("\"odds_type\":\"delta\"", "\"odds_type\":\"" + oddsType + "\"");
    }

    private static CompletableFuture<HttpResponse<String>> ingest(RunningService service, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                .header("Authorization", "Bearer ingest-token").header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(90)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return HttpClient.newHttpClient().sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The message ids the partner took (2xx) for the match, in arrival order. */
    private List<String> accepted(String matchId) {
        return partner.arrivals().stream().filter(a -> a.status() / 100 == 2 && !a.isHeartbeat() && a.matchId().equals(matchId))
                .map(LoopbackPartner.Arrival::messageId).toList();
    }

    private int attemptsOf(String messageId) {
        return (int) partner.arrivals().stream().filter(a -> messageId.equals(a.messageId())).count();
    }

    private static boolean acknowledged(RunningService service, String... ids) {
        for (String id : ids) {
            if (!Files.exists(service.done().resolve(id + ".json")) || Files.exists(service.inbox().resolve(id + ".json"))) {
                return false;
            }
        }
        return true;
    }

    private static boolean pending(RunningService service, String... ids) {
        for (String id : ids) {
            if (!Files.exists(service.inbox().resolve(id + ".json")) || Files.exists(service.done().resolve(id + ".json"))) {
                return false;
            }
        }
        return true;
    }

    private static JsonNode status(RunningService service) throws Exception {
        HttpResponse<String> status = service.request("GET", "/admin/status", ADMIN);
        assertThat(status.statusCode()).isEqualTo(200);
        return JSON.readTree(status.body());
    }

    private static JsonNode totals(RunningService service) throws Exception {
        return status(service).path("totals");
    }

    private static int backlog(RunningService service, String matchId) throws Exception {
        return match(service, matchId).path("backlog").asInt();
    }

    /** The match's entry in /admin/status, or a missing node. */
    private static JsonNode match(RunningService service, String matchId) throws Exception {
        for (JsonNode match : status(service).path("matches")) {
            if (matchId.equals(match.path("match_id").asText())) {
                return match;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
}
