package com.liveodds.push.booking;

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
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.TwoPartners;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The booking API of contract 20 on a running service with two real partners on loopback: a (a booking file) and b
 * (booking all). A booking through the API is in force for pushes and the fixtures listing as soon as it is answered,
 * is written to the partner's booking file (the one record, comments kept) and so survives a restart; every bad
 * request gets one clear JSON answer and leaves delivery alone.
 */
class BookingApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path work;
    private static TwoPartners partners;
    private static LoopbackPartner a;
    private static RunningService service;
    private static Path bookingA;

    @BeforeAll
    static void start() throws Exception {
        partners = new TwoPartners("bk-a-token", "bk-b-token");
        a = partners.a;
        bookingA = work.resolve("booking-a.txt");
        Files.writeString(bookingA, "# partner a, kept by hand and by the API\nmatch:41234571\n");
        service = start(work);
    }

    private static RunningService start(Path work) throws Exception {
        return partners.service(work)
                .set("liveodds.partners.a.booking", bookingA.toString())
                .set("liveodds.fixtures.file", Files.copy(Path.of("data/fixtures.json"), work.resolve("fixtures.json"),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING).toString())
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partners.close();
    }

    @Test
    void aBookingIsInForceForPushesAndTheFixturesListingAsSoonAsItIsAnswered() throws Exception {
        String before = "not-booked-" + UUID.randomUUID();
        service.drop("b1-" + before + ".json", Messages.odds(before, Messages.external("bk-1", 44120030)));
        await().atMost(Duration.ofSeconds(30)).until(() -> messageIds(partners.b).contains(before));
        assertThat(messageIds(a)).doesNotContain(before);
        assertThat(liveOdds("101")).containsEntry("match:44120030", false);

        HttpResponse<String> booked = call("PUT", "/v1/liveodds/101/booking/match:44120030", "bk-a-token");
        assertThat(booked.statusCode()).as(booked.body()).isEqualTo(200);
        assertThat(JSON.readTree(booked.body())).isEqualTo(JSON.readTree("{\"match\":\"match:44120030\",\"booked\":true}"));
        // in force at once: the answer is the moment
        assertThat(liveOdds("101")).containsEntry("match:44120030", true);
        String after = "booked-" + UUID.randomUUID();
        service.drop("b2-" + after + ".json", Messages.odds(after, Messages.external("bk-1", 44120030)));
        await().atMost(Duration.ofSeconds(30)).until(() -> messageIds(a).contains(after));

        HttpResponse<String> unbooked = call("DELETE", "/v1/liveodds/101/booking/match:44120030", "bk-a-token");
        assertThat(unbooked.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(unbooked.body())).isEqualTo(JSON.readTree("{\"match\":\"match:44120030\",\"booked\":false}"));
        assertThat(liveOdds("101")).containsEntry("match:44120030", false);
        String unbookedMessage = "unbooked-" + UUID.randomUUID();
        service.drop("b3-" + unbookedMessage + ".json", Messages.odds(unbookedMessage, Messages.external("bk-1", 44120030)));
        await().atMost(Duration.ofSeconds(30)).until(() -> messageIds(partners.b).contains(unbookedMessage));
        await().during(Duration.ofMillis(300)).until(() -> !messageIds(a).contains(unbookedMessage));
    }

    @Test
    void theBookingFileIsTheOneRecordWrittenWholeAndSurvivesARestart() throws Exception {
        assertThat(call("PUT", "/v1/liveodds/101/booking/match:44120071", "bk-a-token").statusCode()).isEqualTo(200);
        // idempotent: once in the file, however often asked
        assertThat(call("PUT", "/v1/liveodds/101/booking/match:44120071", "bk-a-token").statusCode()).isEqualTo(200);
        assertThat(Files.readAllLines(bookingA)).startsWith("# partner a, kept by hand and by the API")
                .containsOnlyOnce("match:44120071").contains("match:41234571");
        try (Stream<Path> files = Files.list(work)) {
            assertThat(files.map(p -> p.getFileName().toString())).as("no temporary file left").noneMatch(n -> n.endsWith(".tmp"));
        }
        JsonNode listed = JSON.readTree(call("GET", "/v1/liveodds/101/booking", "bk-a-token").body());
        assertThat(listed.path("booking").asText()).isEqualTo("file");
        assertThat(listed.path("matches").toString()).contains("\"match:44120071\"", "\"match:41234571\"");

        service.close();
        service = start(work);
        assertThat(liveOdds("101")).containsEntry("match:44120071", true).containsEntry("match:41234571", true);
        assertThat(call("DELETE", "/v1/liveodds/101/booking/match:44120071", "bk-a-token").statusCode()).isEqualTo(200);
        assertThat(call("DELETE", "/v1/liveodds/101/booking/match:44120071", "bk-a-token").statusCode()).isEqualTo(200);
        assertThat(Files.readAllLines(bookingA)).doesNotContain("match:44120071").contains("match:41234571");
    }

    @Test
    void aPartnerOnBookingAllCannotUnbookButMayBook() throws Exception {
        HttpResponse<String> put = call("PUT", "/v1/liveodds/202/booking/match:7", "bk-b-token");
        assertThat(put.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(put.body()).path("booked").asBoolean()).isTrue();
        HttpResponse<String> delete = call("DELETE", "/v1/liveodds/202/booking/match:7", "bk-b-token");
        assertThat(delete.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(delete.body()).path("error").asText()).isEqualTo("conflict");
        assertThat(JSON.readTree(call("GET", "/v1/liveodds/202/booking", "bk-b-token").body()))
                .isEqualTo(JSON.readTree("{\"booking\":\"all\",\"matches\":[]}"));
    }

    @Test
    void badRequestsGetOneClearJsonAnswerAndChangeNothing() throws Exception {
        String file = Files.readString(bookingA);
        for (String id : List.of("41234567", "match:", "match:12a", "match:-1", "match:\u0661\u0662\u0663", "match:%EF%BC%91",
                "match:1%0A2", "match:1%2F..%2F2", "MATCH:12", "match:" + "9".repeat(31), "match:" + "9".repeat(2000))) {
            HttpResponse<String> refused = call("PUT", "/v1/liveodds/101/booking/" + encodeOnly(id), "bk-a-token");
            assertThat(refused.statusCode()).as(id).isEqualTo(400);
            assertThat(JSON.readTree(refused.body()).path("error").asText()).as(id).isEqualTo("invalid_match");
            assertThat(refused.body()).doesNotContain("9999999999");
        }
        // dot segments are no match id either
        HttpResponse<String> escaped = call("PUT", "/v1/liveodds/101/booking/match:../../x", "bk-a-token");
        assertThat(escaped.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(escaped.body()).path("error").asText()).isEqualTo("invalid_match");
        HttpResponse<String> huge = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(
                request("PUT", "/v1/liveodds/101/booking/match:" + "9".repeat(1_000_000), "bk-a-token").build(),
                HttpResponse.BodyHandlers.ofString());
        // a million digits never reach a route: the HTTP server refuses a request line over 4 KB itself, bodiless
        assertThat(huge.statusCode()).isEqualTo(414);

        // another partner's token, an unknown id: the same 404; no token or a wrong one: 401
        HttpResponse<String> unknown = call("PUT", "/v1/liveodds/999/booking/match:1", "bk-a-token");
        HttpResponse<String> foreign = call("PUT", "/v1/liveodds/202/booking/match:1", "bk-a-token");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(foreign.statusCode()).isEqualTo(404);
        assertThat(foreign.body()).isEqualTo(unknown.body());
        assertThat(call("GET", "/v1/liveodds/202/booking", "bk-a-token").body()).isEqualTo(unknown.body());
        assertThat(call("DELETE", "/v1/liveodds/101/booking/match:41234571", "bk-b-token").statusCode()).isEqualTo(404);
        assertThat(call("DELETE", "/v1/liveodds/101/booking/match:41234571", null).statusCode()).isEqualTo(401);
        assertThat(call("DELETE", "/v1/liveodds/101/booking/match:41234571", "bk-a-tokenx").headers()
                .firstValue("WWW-Authenticate")).hasValue("Bearer");

        // a body is no part of the request: a small one changes nothing, one over the path's 4 KiB is refused unread
        HttpResponse<String> withBody = HTTP.send(request("PUT", "/v1/liveodds/101/booking/match:41234571", "bk-a-token")
                .method("PUT", HttpRequest.BodyPublishers.ofString("{\"booked\":false}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(withBody.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(withBody.body()).path("booked").asBoolean()).isTrue();
        HttpResponse<String> tooLarge = HTTP.send(request("PUT", "/v1/liveodds/101/booking/match:41234571", "bk-a-token")
                .method("PUT", HttpRequest.BodyPublishers.ofString("{\"x\":\"" + "y".repeat(1 << 20) + "\"}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(tooLarge.statusCode()).isEqualTo(413);
        assertThat(JSON.readTree(tooLarge.body()).path("error").asText()).isEqualTo("payload_too_large");
        assertThat(Files.readString(bookingA)).isEqualTo(file);
        // another method on the booking path: 405 in JSON
        HttpResponse<String> post = call("POST", "/v1/liveodds/101/booking", "bk-a-token");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(JSON.readTree(post.body()).path("error").asText()).isEqualTo("method_not_allowed");
    }

    /** Percent-encodes what a URI cannot carry as is (non-ASCII), leaving escapes the test wrote alone. */
    private static String encodeOnly(String id) {
        StringBuilder out = new StringBuilder();
        for (byte b : id.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            out.append(b < 0 ? String.format("%%%02X", b & 0xff) : String.valueOf((char) b));
        }
        return out.toString();
    }

    private static List<String> messageIds(LoopbackPartner partner) {
        return partner.arrivals().stream().map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static Map<String, Boolean> liveOdds(String partnerId) throws Exception {
        HttpResponse<String> response = call("GET", "/v1/liveodds/" + partnerId + "/fixtures", "bk-a-token");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return Stream.of(JSON.readTree(response.body()).path("fixtures")).flatMap(f -> {
            List<JsonNode> all = new java.util.ArrayList<>();
            f.forEach(all::add);
            return all.stream();
        }).collect(Collectors.toMap(f -> f.path("fixture").path("id").asText(), f -> f.path("is_liveodds").asBoolean()));
    }

    private static HttpRequest.Builder request(String method, String path, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return request;
    }

    static HttpResponse<String> call(String method, String path, String token) throws Exception {
        return HTTP.send(request(method, path, token).build(), HttpResponse.BodyHandlers.ofString());
    }
}
