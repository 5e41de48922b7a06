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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.TwoPartners;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery asked by the partner (contract 20) on a running service with two real partners on loopback: a books two
 * matches in a file, b books all. A partner whose database lost what came after a time asks for recovery and ends
 * with exactly its matches' current odds (latest snapshot and the odds after it) and every settlement and rollback
 * accepted since, in order, with the original message ids and bodies, while live pushes go on; what is retained
 * survives a restart; every bad request gets one clear JSON answer; the limit answers 429. In order: each test's
 * recovery sees what the ones before it retained.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RecoveryTest {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final long X = 44120030;
    private static final long Y = 44120071;
    private static final AtomicInteger FILES = new AtomicInteger();

    @TempDir
    static Path work;
    private static TwoPartners partners;
    private static LoopbackPartner a;
    private static LoopbackPartner b;
    private static RunningService service;
    /** Y's settlement of the first test: retained, so a recovery of Y brings it again. */
    private static String settledBefore;

    @BeforeAll
    static void start() throws Exception {
        partners = new TwoPartners("rc-a-token", "rc-b-token");
        a = partners.a;
        b = partners.b;
        Files.writeString(work.resolve("booking-a.txt"), "match:" + X + "\nmatch:" + Y + "\n");
        service = start(work);
    }

    private static RunningService start(Path work) {
        return partners.service(work)
                .set("liveodds.partners.a.booking", work.resolve("booking-a.txt").toString())
                .set("liveodds.admin.tokens", "rc-admin")
                .set("liveodds.recovery.max-requests", "4")
                .set("liveodds.heartbeat.interval", "1h")
                // a recovery window of 64 pushes (a quarter of a partner's 200), and retries that do not wait long
                .set("liveodds.delivery.queue-size", "400")
                .set("liveodds.delivery.backoff.max", "1s")
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partners.close("rc-admin");
    }

    /** An upstream message of the match; {@code oddsType} only for odds. */
    static String message(String id, String type, String oddsType, long match) {
        return "{\"message_id\":\"" + id + "\",\"message_type\":\"" + type + "\","
                + (oddsType == null ? "" : "\"odds_type\":\"" + oddsType + "\",")
                + "\"timestamp\":\"" + Instant.now() + "\",\"fight_metadata\":{\"fight_id\":\"f" + match
                + "\",\"fight_id_sr\":\"match:" + match + "\"},\"markets\":[{\"id\":\"1\",\"status\":1,\"outcomes\":"
                + "[{\"id\":\"1\",\"odds\":" + (1 + (id.hashCode() & 0xff) / 100.0) + ",\"active\":true}]}]}";
    }

    /** Drops the message into the inbox (in file-name order) and returns its id. */
    private static String drop(String label, String type, String oddsType, long match) {
        String id = label + "-" + UUID.randomUUID();
        service.drop(String.format("%06d-%s.json", FILES.incrementAndGet(), id), message(id, type, oddsType, match));
        return id;
    }

    private static void awaitAt(LoopbackPartner partner, List<String> ids) {
        await().atMost(Duration.ofSeconds(20)).until(() -> partner.arrivals().stream()
                .map(LoopbackPartner.Arrival::messageId).toList().containsAll(ids));
    }

    @Test
    @Order(1)
    void aPartnerThatLostWhatCameAfterATimeGetsExactlyTheCurrentOddsAndTheSettlementsSinceInOrder() throws Exception {
        String x1 = drop("x-snapshot-1", "odds", "snapshot", X);
        String x2 = drop("x-delta-1", "odds", "delta", X);
        String x3 = drop("x-settled-1", "market_settlement", null, X);
        String y1 = drop("y-delta-1", "odds", "delta", Y);
        String y2 = drop("y-settled-1", "market_settlement", null, Y);
        settledBefore = y2;
        awaitAt(a, List.of(x1, x2, x3, y1, y2));
        Instant after = Instant.now();
        String x4 = drop("x-snapshot-2", "odds", "snapshot", X);
        String x5 = drop("x-delta-2", "odds", "delta", X);
        String x6 = drop("x-settled-2", "market_settlement", null, X);
        String x7 = drop("x-rollback-2", "rollback_settlement", null, X);
        awaitAt(a, List.of(x4, x5, x6, x7));
        awaitAt(b, List.of(x4, x5, x6, x7));

        int seen = a.arrivals().size();
        int seenAtB = b.arrivals().size();
        a.latency(30);
        HttpResponse<String> asked = post("101", "rc-a-token", "{\"after\":\"" + after + "\",\"request_id\":\"lost-an-hour\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        assertThat(JSON.readTree(asked.body()))
                .isEqualTo(JSON.readTree("{\"request_id\":\"lost-an-hour\",\"matches\":2,\"messages\":5}"));
        // live pushes go on meanwhile, in the same per-match order
        String live = drop("x-live", "odds", "delta", X);

        JsonNode done = awaitEnd("101", "rc-a-token", "lost-an-hour");
        assertThat(done.path("state").asText()).isEqualTo("complete");
        assertThat(done.path("delivered").asInt()).isEqualTo(5);
        assertThat(done.path("refused").asInt()).isZero();
        awaitAt(a, List.of(live));
        a.latency(0);

        List<LoopbackPartner.Arrival> again = a.arrivals().subList(seen, a.arrivals().size()).stream()
                .filter(arrival -> !arrival.isHeartbeat()).toList();
        // X: the latest snapshot and the odds after it, the settlement and rollback since; Y: its odds (no snapshot
        // retained), not its settlement from before; each with its original id and body; the live push after them
        // the live push after them, and last (it may also have come before them, if it came before the recovery began)
        List<String> ofX = again.stream().filter(p -> p.matchId().equals("match:" + X)).map(LoopbackPartner.Arrival::messageId)
                .toList();
        assertThat(ofX).containsSubsequence(x4, x5, x6, x7, live).endsWith(live);
        assertThat(ofX).filteredOn(id -> !id.equals(live)).containsExactly(x4, x5, x6, x7);
        assertThat(again.stream().filter(p -> p.matchId().equals("match:" + Y)).map(LoopbackPartner.Arrival::messageId))
                .containsExactly(y1);
        LoopbackPartner.Arrival rollback = again.stream().filter(p -> p.messageId().equals(x7)).findFirst().orElseThrow();
        assertThat(rollback.path()).endsWith("/match:" + X + "/rollback_settlement");
        LoopbackPartner.Arrival first = a.arrivals().stream().filter(p -> p.messageId().equals(x7)).findFirst().orElseThrow();
        assertThat(JSON.readTree(rollback.body())).isEqualTo(JSON.readTree(first.body()));
        // b asked for nothing and got nothing again
        assertThat(b.arrivals().subList(seenAtB, b.arrivals().size()).stream().map(LoopbackPartner.Arrival::messageId))
                .containsOnly(live);

        assertThat(MetricsScrape.of(service).value("liveodds_recovered_messages_total")).isGreaterThanOrEqualTo(5.0);
        JsonNode status = JSON.readTree(service.request("GET", "/admin/status", "Bearer rc-admin").body());
        assertThat(status.path("recoveries").toString()).contains("\"request_id\":\"lost-an-hour\"", "\"partner\":\"a\"",
                "\"state\":\"complete\"");
    }

    @Test
    @Order(2)
    void oneMatchGetsAllThatIsRetainedAndWhatIsRetainedSurvivesARestart() throws Exception {
        String snapshot = drop("y-snapshot", "odds", "snapshot", Y);
        String settled = drop("y-settled", "market_settlement", null, Y);
        String delta = drop("y-delta", "odds", "delta", Y);
        awaitAt(a, List.of(snapshot, settled, delta));

        service.close();
        service = start(work);
        int seen = a.arrivals().size();
        HttpResponse<String> asked = post("101", "rc-a-token", "{\"match\":\"match:" + Y + "\"}");
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        String id = JSON.readTree(asked.body()).path("request_id").asText();
        assertThat(awaitEnd("101", "rc-a-token", id).path("state").asText()).isEqualTo("complete");
        List<String> again = a.arrivals().subList(seen, a.arrivals().size()).stream().filter(p -> !p.isHeartbeat())
                .map(LoopbackPartner.Arrival::messageId).toList();
        // every settlement retained (the first test's too), and the odds from the latest snapshot on
        assertThat(again).containsExactly(settledBefore, snapshot, settled, delta);
    }

    @Test
    @Order(3)
    void badRequestsGetOneClearJsonAnswerAndCountForNothing() throws Exception {
        Instant now = Instant.now();
        Object[][] cases = {
                {"{\"match\":\"match:1\"}", 409, "not_booked"},
                {"{\"match\":\"match:../../x\"}", 400, "invalid_match"},
                {"{\"match\":\"match:\u0661\u0662\"}", 400, "invalid_match"},
                {"{\"match\":\"match:" + "9".repeat(100_000) + "\"}", 413, "payload_too_large"},
                {"{\"match\":\"match:" + X + "\",\"after\":\"" + now + "\"}", 400, "invalid_request"},
                {"{\"match\":\"match:" + X + "\",\"priority\":\"high\"}", 400, "invalid_request"},
                {"{\"match\":\"match:" + X + "\",\"match\":\"match:" + Y + "\"}", 400, "invalid_request"},
                {"{\"match\":" + X + "}", 400, "invalid_request"},
                {"{\"after\":\"" + now.plusSeconds(60) + "\"}", 400, "invalid_request"},
                {"{\"after\":\"yesterday\"}", 400, "invalid_request"},
                {"{\"after\":\"" + now.minus(Duration.ofHours(11)) + "\"}", 400, "invalid_request"},
                {"{\"match\":\"match:" + X + "\",\"request_id\":\"a\\nb\"}", 400, "invalid_request"},
                {"{\"match\":\"match:" + X + "\"} {}", 400, "invalid_request"},
                {"[]", 400, "invalid_request"},
                {"", 400, "invalid_request"},
        };
        for (Object[] c : cases) {
            HttpResponse<String> refused = post("101", "rc-a-token", (String) c[0]);
            String label = ((String) c[0]).substring(0, Math.min(80, ((String) c[0]).length()));
            assertThat(refused.statusCode()).as(label).isEqualTo(c[1]);
            assertThat(JSON.readTree(refused.body()).path("error").asText()).as(label).isEqualTo(c[2]);
            assertThat(refused.body()).as(label).doesNotContain("high", "yesterday", "999999");
        }
        HttpResponse<String> tooOld = post("101", "rc-a-token", "{\"after\":\"" + now.minus(Duration.ofHours(11)) + "\"}");
        String earliest = JSON.readTree(tooOld.body()).path("message").asText().replaceAll(".*the earliest is ", "");
        assertThat(Duration.between(now.minus(Duration.ofHours(10)), Instant.parse(earliest)).abs()).isLessThan(Duration.ofMinutes(1));

        // another partner's token, an unknown partner or request id: 404; no token: 401
        HttpResponse<String> unknown = post("999", "rc-a-token", "{\"match\":\"match:" + X + "\"}");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(post("202", "rc-a-token", "{\"match\":\"match:" + X + "\"}").body()).isEqualTo(unknown.body());
        assertThat(post("101", null, "{\"match\":\"match:" + X + "\"}").statusCode()).isEqualTo(401);
        HttpResponse<String> ofA = post("101", "rc-a-token", "{\"match\":\"match:" + X + "\",\"request_id\":\"only-a\"}");
        assertThat(ofA.statusCode()).isEqualTo(202);
        assertThat(get("/v1/liveodds/101/recovery/only-a", "rc-a-token").statusCode()).isEqualTo(200);
        assertThat(get("/v1/liveodds/202/recovery/only-a", "rc-b-token").statusCode()).isEqualTo(404);
        assertThat(get("/v1/liveodds/202/recovery/only-a", "rc-a-token").statusCode()).isEqualTo(404);
        assertThat(get("/v1/liveodds/101/recovery/no-such-id", "rc-a-token").statusCode()).isEqualTo(404);
        HttpResponse<String> reused = post("101", "rc-a-token", "{\"match\":\"match:" + X + "\",\"request_id\":\"only-a\"}");
        assertThat(reused.statusCode()).isEqualTo(409);
        awaitEnd("101", "rc-a-token", "only-a");
    }

    @Test
    @Order(4)
    void pastTheLimitAPartnerIsAnswered429WithRetryAfterAndTheOthersAreNot() throws Exception {
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> asked = post("202", "rc-b-token", "{\"match\":\"match:" + X + "\"}");
            assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        }
        HttpResponse<String> limited = post("202", "rc-b-token", "{\"match\":\"match:" + X + "\"}");
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(JSON.readTree(limited.body()).path("error").asText()).isEqualTo("too_many_requests");
        assertThat(Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 600L);
        // a refused request is not counted: still refused, and a has its own count
        assertThat(post("202", "rc-b-token", "{\"match\":\"match:" + X + "\"}").statusCode()).isEqualTo(429);
    }

    @Test
    @Order(5)
    void aRecoveryThatStartsLateEndsWithTheLivePushesThatCameBeforeItStarted() throws Exception {
        // the partner's first recovery cannot finish while Y fails: it fills its window of 64 pushes and waits
        a.failing(path -> path.contains("match:" + Y));
        List<String> ofY = new ArrayList<>();
        for (int i = 0; i < 66; i++) {
            ofY.add(drop("y-stuck-" + i, "odds", "delta", Y));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> a.arrivals().stream().anyMatch(p -> p.messageId().equals(ofY.get(0))));
        HttpResponse<String> first = post("101", "rc-a-token", "{\"match\":\"match:" + Y + "\",\"request_id\":\"stuck\"}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        // the second waits for it, and X's live pushes go on meanwhile
        HttpResponse<String> late = post("101", "rc-a-token", "{\"match\":\"match:" + X + "\",\"request_id\":\"late\"}");
        assertThat(late.statusCode()).as(late.body()).isEqualTo(202);
        String newest = drop("x-while-waiting", "odds", "delta", X);
        awaitAt(a, List.of(newest));
        assertThat(JSON.readTree(get("/v1/liveodds/101/recovery/late", "rc-a-token").body()).path("state").asText())
                .isEqualTo("queued");

        a.failing(path -> false);
        assertThat(awaitEnd("101", "rc-a-token", "stuck").path("state").asText()).isEqualTo("complete");
        assertThat(awaitEnd("101", "rc-a-token", "late").path("state").asText()).isEqualTo("complete");
        List<String> ofX = a.arrivals().stream().filter(p -> p.status() == 202 && p.matchId().equals("match:" + X))
                .map(LoopbackPartner.Arrival::messageId).toList();
        // what the recovery brings is what was retained when it began: the partner ends with the newest odds, not older
        assertThat(ofX).endsWith(newest);
        assertThat(ofX.stream().filter(newest::equals)).hasSize(2);
    }

    private static JsonNode awaitEnd(String partnerId, String token, String requestId) {
        String path = "/v1/liveodds/" + partnerId + "/recovery/" + requestId;
        return await().atMost(Duration.ofSeconds(30)).until(() -> JSON.readTree(get(path, token).body()),
                s -> s.path("state").asText().equals("complete") || s.path("state").asText().equals("failed"));
    }

    static HttpResponse<String> post(String partnerId, String token, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/liveodds/" + partnerId + "/recovery"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(String path, String token) throws Exception {
        return service.request("GET", path, "Bearer " + token);
    }
}
