package com.liveodds.push.source.http;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The HTTP source over real HTTP: 202 only after delivery, 400/401/413/503 and their order, nothing leaks through. */
class HttpIngestTest {

    @TempDir
    static Path work;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String TOKEN = "Bearer ingest-token-1";
    private static final int MAX_BODY = 4 * 1024;
    private static final long SLOW_MATCH = 888;
    private static final int SLOW_MILLIS = 1500;
    private static final long REFUSING_MATCH = 999;

    private static WireMockPartner partner;
    private static RunningService service;

    private static CapturedLogs logs;

    @BeforeAll
    static void start() throws Exception {
        logs = CapturedLogs.all();
        partner = new WireMockPartner().acceptingEverything();
        partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/42/match:" + SLOW_MATCH + "/.*")).atPriority(1)
                .willReturn(aResponse().withStatus(202).withFixedDelay(SLOW_MILLIS)));
        partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/42/match:" + REFUSING_MATCH + "/.*")).atPriority(1)
                .willReturn(aResponse().withStatus(422).withBody("{\"error\":\"unknown market\"}")));
        service = RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .work(work)
                .set("liveodds.source", "http")
                .set("liveodds.fixtures.auth.mode", "static")
                .set("liveodds.fixtures.auth.tokens", "ingest-token-1,ingest-token-2")
                .set("liveodds.source.http.max-body", "4KB")
                .set("liveodds.source.http.max-in-flight", "2")
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partner.close();
        logs.close();
        // neither the accepted tokens nor the ones callers presented, nor the partner's access token
        assertThat(logs.messages()).isNotEmpty().noneMatch(m -> m.contains("ingest-token")
                || m.contains(WireMockPartner.TOKEN));
    }

    @Test
    void aValidMessageIsAnswered202OnlyOnceThePartnerHasItAndNoInboundHeaderReachesThePartner() throws Exception {
        HttpResponse<String> response = send(Messages.odds("h-valid-1", Messages.external("1", 41234567)), TOKEN,
                "X-Upstream-Secret", "do-not-forward");

        assertThat(response.statusCode()).isEqualTo(202);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode receipt = JSON.readTree(response.body());
        assertThat(receipt.path("message_id").asText()).isEqualTo("h-valid-1");
        assertThat(receipt.path("status").asText()).isEqualTo("delivered");
        assertThat(receipt.path("match_id").asText()).isEqualTo("match:41234567");
        // no await: the push is already there when the 202 comes
        LoggedRequest push = pushOf("h-valid-1");
        assertThat(push.getUrl()).isEqualTo("/partner/v1/liveodds/42/match:41234567/odds");
        assertThat(push.getHeader("Authorization")).isEqualTo("Bearer " + WireMockPartner.TOKEN);
        assertThat(push.getHeaders().keys()).noneMatch(h -> h.equalsIgnoreCase("X-Upstream-Secret") || h.startsWith("Camel"));
        assertThat(push.getHeaders().all().toString()).doesNotContain("ingest-token");
        // nor does the partner's answer or the caller's token come back to the caller
        assertThat(response.headers().map().keySet()).noneMatch(h -> h.equalsIgnoreCase("Authorization")
                || h.equalsIgnoreCase("X-Upstream-Secret") || h.startsWith("Camel") || h.equalsIgnoreCase("Idempotency-Key"));
    }

    @Test
    void theAnswerWaitsForASlowPartner() throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = send(Messages.odds("h-slow-1", Messages.external("8", SLOW_MATCH)), TOKEN);
        long tookMillis = (System.nanoTime() - started) / 1_000_000;

        assertThat(response.statusCode()).isEqualTo(202);
        assertThat(tookMillis).isGreaterThanOrEqualTo(SLOW_MILLIS);
        assertThat(pushOf("h-slow-1")).isNotNull();
    }

    @Test
    void aMessageThePartnerRefusesIsAnswered202OnceItIsDeadLettered() throws Exception {
        long before = service.deadLetterCount();
        HttpResponse<String> response = send(Messages.odds("h-refused-1", Messages.external("9", REFUSING_MATCH)), TOKEN);

        assertThat(response.statusCode()).isEqualTo(202);
        assertThat(JSON.readTree(response.body()).path("status").asText()).isEqualTo("dead_lettered");
        assertThat(service.deadLetterCount()).isEqualTo(before + 1);
    }

    @Test
    void invalidMessagesAreRefusedWith400AndTheirReasonWithoutADeadLetter() throws Exception {
        long deadLetters = service.deadLetterCount();
        int pushes = partner.pushes().size();
        List<String[]> cases = List.of(
                new String[] {"this is { not json", "not JSON"},
                new String[] {"", "empty message"},
                new String[] {Messages.message("lineup", "h-bad-type", Messages.external("3", 900)), "unknown message_type 'lineup'"},
                new String[] {"{\"message_type\":\"odds\",\"odds_type\":\"delta\",\"timestamp\":\"2026-11-21T20:15:03.123Z\","
                        + "\"fight_metadata\":{\"fight_id\":\"3\"}}", "missing field message_id"},
                new String[] {Messages.odds("h-unresolvable", "{\"fight_id\":\"x9\",\"card_id\":\"abc\"}"), "unresolvable match"});
        for (String[] c : cases) {
            HttpResponse<String> response = send(c[0], TOKEN);
            assertThat(response.statusCode()).as(c[1]).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
            JsonNode error = JSON.readTree(response.body());
            assertThat(error.path("error").asText()).isEqualTo("invalid_message");
            assertThat(error.path("message").asText()).contains(c[1]);
        }
        assertThat(service.deadLetterCount()).isEqualTo(deadLetters);
        assertThat(partner.pushes()).hasSize(pushes);
    }

    @Test
    void bytesThatAreNotOneUtf8JsonObjectAreRefusedWith400AndCountedNeverPartlyDelivered() throws Exception {
        int pushes = partner.pushes().size();
        String a = Messages.odds("h-two-a", Messages.external("1", 41234567));
        String b = Messages.odds("h-two-b", Messages.external("1", 41234567));
        String latin = Messages.odds("h-latin", "{\"fight_id\":\"1\",\"fight_id_sr\":\"match:41234567\",\"note\":\"Jos\u00e9\"}");
        List<Object[]> cases = List.of(
                new Object[] {latin.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), "not UTF-8"},
                new Object[] {Messages.odds("h-utf16", Messages.external("1", 41234567)).getBytes(java.nio.charset.StandardCharsets.UTF_16), "not UTF-8"},
                new Object[] {(a + b).getBytes(java.nio.charset.StandardCharsets.UTF_8), "content after the JSON object"},
                new Object[] {(a + "\n" + b).getBytes(java.nio.charset.StandardCharsets.UTF_8), "content after the JSON object"},
                new Object[] {(a + " trailing garbage").getBytes(java.nio.charset.StandardCharsets.UTF_8), "content after the JSON object"},
                new Object[] {a.replace("\"odds_type\"", "\"message_id\":\"h-dup\",\"odds_type\"").getBytes(java.nio.charset.StandardCharsets.UTF_8), "duplicate key"},
                new Object[] {Messages.odds("h-\u4e2d", Messages.external("1", 41234567)).getBytes(java.nio.charset.StandardCharsets.UTF_8), "printable ASCII"});
        for (Object[] c : cases) {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                    .header("Authorization", TOKEN).POST(HttpRequest.BodyPublishers.ofByteArray((byte[]) c[0])).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as((String) c[1]).isEqualTo(400);
            assertThat(JSON.readTree(response.body()).path("message").asText()).contains((String) c[1]);
        }
        assertThat(partner.pushes()).hasSize(pushes);
        assertThat(service.management("/observe/metrics").body())
                .containsPattern("liveodds_messages_rejected_total\\{[^}]*reason=\"trailing_content\"[^}]*} [3-9]")
                .containsPattern("liveodds_messages_rejected_total\\{[^}]*reason=\"not_utf8\"[^}]*} [2-9]");
    }

    @Test
    void theBearerIsCheckedFirst() throws Exception {
        int pushes = partner.pushes().size();
        String valid = Messages.odds("h-unauthorised", Messages.external("1", 41234567));
        String oversized = "x".repeat(MAX_BODY + 1);
        for (String authorization : new String[] {null, "Bearer wrong", "ingest-token-1", "Basic ingest-token-1"}) {
            for (String body : List.of(valid, oversized, "not json")) {
                HttpResponse<String> response = send(body, authorization);
                assertThat(response.statusCode()).isEqualTo(401);
                assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
                assertThat(JSON.readTree(response.body()).path("error").asText()).isEqualTo("unauthorized");
            }
        }
        assertThat(partner.pushes()).hasSize(pushes);
    }

    @Test
    void bodiesAboveMaxBodyAreRefusedWith413BeforeTheEnvelopeIsRead() throws Exception {
        HttpResponse<String> tooBig = send("x".repeat(MAX_BODY + 1), TOKEN);
        assertThat(tooBig.statusCode()).isEqualTo(413);
        assertThat(JSON.readTree(tooBig.body()).path("error").asText()).isEqualTo("payload_too_large");

        // 4KB is 4096 bytes: a valid message of exactly that size goes through
        String message = padded(Messages.odds("h-exactly-4k", Messages.external("1", 41234567)), MAX_BODY);
        HttpResponse<String> exactly = send(message, TOKEN);
        assertThat(exactly.statusCode()).isEqualTo(202);
    }

    @Test
    void aliveIsAnswered202AtOnceAndNeverPushed() throws Exception {
        int pushes = partner.pushes().size();
        HttpResponse<String> response = send(Messages.alive(), TOKEN);
        assertThat(response.statusCode()).isEqualTo(202);
        assertThat(JSON.readTree(response.body()).path("status").asText()).isEqualTo("received");
        assertThat(partner.pushes()).hasSize(pushes);
    }

    @Test
    void whenEveryDeliverySlotIsTakenTheCallerIsToldToComeBack() throws Exception {
        CompletableFuture<HttpResponse<String>> first = sendAsync(Messages.odds("h-busy-1", Messages.external("8", SLOW_MATCH)));
        CompletableFuture<HttpResponse<String>> second = sendAsync(Messages.odds("h-busy-2", Messages.external("8", SLOW_MATCH)));

        HttpResponse<String>[] busy = new HttpResponse[1];
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20)).until(() -> {
            busy[0] = send(Messages.odds("h-probe-" + System.nanoTime(), Messages.external("1", 41234567)), TOKEN);
            return busy[0].statusCode() == 503;
        });
        assertThat(busy[0].headers().firstValue("Retry-After")).hasValue("1");
        assertThat(JSON.readTree(busy[0].body()).path("error").asText()).isEqualTo("unavailable");

        assertThat(first.get().statusCode()).isEqualTo(202);
        assertThat(second.get().statusCode()).isEqualTo(202);
        assertThat(send(Messages.odds("h-after-busy", Messages.external("1", 41234567)), TOKEN).statusCode()).isEqualTo(202);
    }

    @Test
    void aFormEncodedContentTypeChangesNothingTheBodyIsTakenAsSent() throws Exception {
        String form = "application/x-www-form-urlencoded";
        String valid = Messages.odds("h-form-1", Messages.external("1", 41234567));
        String oversized = "a=b&" + "x".repeat(MAX_BODY);
        for (String body : List.of(valid, oversized)) {
            assertThat(HTTP.send(request(body, null, "Content-Type", form), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(401);
        }
        assertThat(HTTP.send(request(oversized, TOKEN, "Content-Type", form), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(413);

        HttpResponse<String> accepted = HTTP.send(request(valid, TOKEN, "Content-Type", form), HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(JSON.readTree(accepted.body()).path("status").asText()).isEqualTo("delivered");
        assertThat(pushOf("h-form-1").getBodyAsString()).contains("\"odds\":1.850");
    }

    private static String padded(String message, int size) {
        String prefix = message.substring(0, message.length() - 1) + ",\"padding\":\"";
        return prefix + "p".repeat(size - prefix.length() - 2) + "\"}";
    }

    private static LoggedRequest pushOf(String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).findFirst()
                .orElseThrow(() -> new AssertionError("no push with Idempotency-Key " + messageId));
    }

    private static HttpRequest request(String body, String authorization, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        boolean contentType = false;
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
            contentType |= headers[i].equalsIgnoreCase("Content-Type");
        }
        if (!contentType) {
            request.header("Content-Type", "application/json");
        }
        return request.build();
    }

    private static HttpResponse<String> send(String body, String authorization, String... headers) throws Exception {
        return HTTP.send(request(body, authorization, headers), HttpResponse.BodyHandlers.ofString());
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(String body) {
        return HTTP.sendAsync(request(body, TOKEN), HttpResponse.BodyHandlers.ofString());
    }
}
