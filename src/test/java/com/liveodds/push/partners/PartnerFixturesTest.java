package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.TwoPartners;
import com.liveodds.push.support.JwtIssuer;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixtures API of several partners (contract 16), over real HTTP: each partner's token opens its own listing only
 * (another partner's path answers exactly as an unknown id), every fixture is listed for every partner, and
 * is_liveodds follows that partner's booking, also when the booking is edited while the service runs.
 */
class PartnerFixturesTest {

    @TempDir
    static Path work;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The file as data/fixtures.json has it: four fights with live odds, two without. */
    private static final Map<String, Boolean> AS_THE_FILE_SAYS = Map.of("match:41234567", true, "match:41234568", true,
            "match:44120030", true, "match:44120071", true, "match:41234571", false, "match:41234572", false);

    private static TwoPartners partners;
    private static RunningService service;
    private static Path bookingB;

    @BeforeAll
    static void start() throws Exception {
        partners = new TwoPartners("fx-a-one, fx-a-two", "fx-b-one");
        bookingB = work.resolve("booking-b.txt");
        // b books a fight the file says has no live odds, and one it says has them; not the others
        Files.writeString(bookingB, "# b\nmatch:41234571\n41234567\n\n");
        service = partners.service(work)
                .set("liveodds.partners.b.booking", bookingB.toString())
                .set("liveodds.admin.tokens", "admin-secret-1")
                .set("liveodds.fixtures.file", Files.copy(Path.of("data/fixtures.json"), work.resolve("fixtures.json")).toString())
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partners.close("fx-a-one", "fx-a-two");
    }

    @Test
    void eachPartnerListsEveryFixtureWithIsLiveoddsFromItsOwnBooking() throws Exception {
        assertThat(liveOdds(get("/v1/liveodds/101/fixtures", "Bearer fx-a-two"))).isEqualTo(AS_THE_FILE_SAYS);
        assertThat(liveOdds(get("/v1/liveodds/101/fixtures", "Bearer fx-a-one"))).isEqualTo(AS_THE_FILE_SAYS);

        // (awaited: the booking test edits b's booking and puts it back)
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Map<String, Boolean> forB = liveOdds(get("/v1/liveodds/202/fixtures", "Bearer fx-b-one"));
            assertThat(forB.keySet()).isEqualTo(AS_THE_FILE_SAYS.keySet());
            assertThat(forB).containsEntry("match:41234571", true).containsEntry("match:41234567", true)
                    .containsEntry("match:41234568", false).containsEntry("match:44120030", false)
                    .containsEntry("match:44120071", false).containsEntry("match:41234572", false);
        });
    }

    @Test
    void aTokenOfAnotherPartnerAnswersExactlyAsAnUnknownIdAndNeverShowsItsListing() throws Exception {
        HttpResponse<String> unknown = get("/v1/liveodds/999/fixtures", "Bearer fx-a-one");
        assertThat(unknown.statusCode()).isEqualTo(404);
        JsonNode unknownBody = JSON.readTree(unknown.body());
        assertThat(unknownBody.path("error").asText()).isEqualTo("not_found");

        for (String[] attempt : new String[][] {{"/v1/liveodds/202/fixtures", "Bearer fx-a-one"},
                {"/v1/liveodds/202/fixtures", "Bearer fx-a-two"}, {"/v1/liveodds/101/fixtures", "Bearer fx-b-one"},
                {"/v1/liveodds/0202/fixtures", "Bearer fx-b-one"}, {"/v1/liveodds/202%20/fixtures", "Bearer fx-b-one"},
                {"/v1/liveodds/202,101/fixtures", "Bearer fx-b-one"}, {"/v1/liveodds/b/fixtures", "Bearer fx-b-one"}}) {
            HttpResponse<String> refused = get(attempt[0], attempt[1]);
            assertThat(refused.statusCode()).as("%s with %s", attempt[0], attempt[1]).isEqualTo(404);
            assertThat(JSON.readTree(refused.body())).as(attempt[0]).isEqualTo(unknownBody);
            assertThat(refused.body()).doesNotContain("fixtures").doesNotContain("match:");
            assertThat(refused.headers().map().keySet()).as(attempt[0]).isEqualTo(unknown.headers().map().keySet());
        }

        // the path decides, not a header of the same name
        HttpResponse<String> spoofed = HTTP.send(HttpRequest.newBuilder(uri("/v1/liveodds/202/fixtures"))
                .header("Authorization", "Bearer fx-a-one").header("partnerId", "101").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(spoofed.statusCode()).isEqualTo(404);
    }

    @Test
    void anyOtherTokenIs401OnEveryPathAndTheAdminTokensStaySeparate() throws Exception {
        for (String authorization : new String[] {null, "Bearer", "Bearer fx-a-three", "Bearer fx-a-one,fx-b-one",
                "Bearer admin-secret-1", "fx-b-one", "Basic fx-b-one"}) {
            for (String path : List.of("/v1/liveodds/101/fixtures", "/v1/liveodds/202/fixtures", "/v1/liveodds/999/fixtures")) {
                HttpResponse<String> refused = get(path, authorization);
                assertThat(refused.statusCode()).as("%s with %s", path, authorization).isEqualTo(401);
                assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            }
        }
        assertThat(service.request("GET", "/admin/dead-letters", "Bearer fx-a-one").statusCode()).isEqualTo(401);
        assertThat(service.request("GET", "/admin/dead-letters", "Bearer admin-secret-1").statusCode()).isEqualTo(200);
    }

    @Test
    void aBookingEditedWhileRunningChangesThatPartnersListingOnly() throws Exception {
        Path tmp = bookingB.resolveSibling(".booking-b.tmp");
        Files.writeString(tmp, "match:44120071\n");
        Files.setLastModifiedTime(tmp, java.nio.file.attribute.FileTime.from(
                Files.getLastModifiedTime(bookingB).toInstant().plusSeconds(2)));
        String before = Files.readString(bookingB);
        try {
            Files.move(tmp, bookingB, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    liveOdds(get("/v1/liveodds/202/fixtures", "Bearer fx-b-one")).entrySet().stream()
                            .filter(Map.Entry::getValue).map(Map.Entry::getKey).toList()).containsExactly("match:44120071"));
            assertThat(liveOdds(get("/v1/liveodds/101/fixtures", "Bearer fx-a-one"))).isEqualTo(AS_THE_FILE_SAYS);
        } finally {
            Files.writeString(bookingB, before);
            Files.setLastModifiedTime(bookingB, java.nio.file.attribute.FileTime.from(
                    Files.getLastModifiedTime(bookingB).toInstant().plusSeconds(4)));
        }
    }

    @Test
    void inJwtModeThePartnerClaimBindsTheTokenToItsPartner() throws Exception {
        try (JwtIssuer issuer = new JwtIssuer();
             RunningService jwt = RunningService.builder()
                     .partner("a", "101", partners.a.baseUrl(), partners.a.authUrl())
                     .partner("b", "202", partners.b.baseUrl(), partners.b.authUrl())
                     .set("liveodds.partners.b.booking", bookingB.toString())
                     .set("liveodds.fixtures.auth.mode", "jwt")
                     .set("liveodds.fixtures.auth.jwks-url", issuer.jwksUrl())
                     .set("liveodds.fixtures.auth.issuer", JwtIssuer.ISSUER)
                     .set("liveodds.fixtures.auth.audience", JwtIssuer.AUDIENCE)
                     .set("camel.main.shutdown-timeout", "1")
                     .start()) {
            String ofA = issuer.sign(JwtIssuer.validClaims().claim("azp", "101").build());
            String ofB = issuer.sign(JwtIssuer.validClaims().claim("azp", "202").build());
            assertThat(get(jwt, "/v1/liveodds/101/fixtures", "Bearer " + ofA).statusCode()).isEqualTo(200);
            assertThat(get(jwt, "/v1/liveodds/202/fixtures", "Bearer " + ofB).statusCode()).isEqualTo(200);
            assertThat(get(jwt, "/v1/liveodds/202/fixtures", "Bearer " + ofA).statusCode()).isEqualTo(404);
            assertThat(get(jwt, "/v1/liveodds/101/fixtures", "Bearer " + ofB).statusCode()).isEqualTo(404);
            // valid tokens that name no partner, or name it in another shape, open nothing
            for (String token : List.of(issuer.token(), issuer.sign(JwtIssuer.validClaims().claim("azp", 101).build()),
                    issuer.sign(JwtIssuer.validClaims().claim("azp", List.of("101")).build()),
                    issuer.sign(JwtIssuer.validClaims().claim("partner", "101").build()))) {
                assertThat(get(jwt, "/v1/liveodds/101/fixtures", "Bearer " + token).statusCode()).isEqualTo(404);
            }
            // the claim is still only believed from a token that is valid
            String foreign = JwtIssuer.sign(JwtIssuer.newKey("k1"), JwtIssuer.validClaims().claim("azp", "101").build());
            assertThat(get(jwt, "/v1/liveodds/101/fixtures", "Bearer " + foreign).statusCode()).isEqualTo(401);
        }
    }

    @Test
    void thePartnerClaimIsASetting() throws Exception {
        try (JwtIssuer issuer = new JwtIssuer();
             RunningService jwt = RunningService.builder()
                     .partner("a", "101", partners.a.baseUrl(), partners.a.authUrl())
                     .partner("b", "202", partners.b.baseUrl(), partners.b.authUrl())
                     .set("liveodds.fixtures.auth.mode", "jwt")
                     .set("liveodds.fixtures.auth.partner-claim", "partner_id")
                     .set("liveodds.fixtures.auth.jwks-url", issuer.jwksUrl())
                     .set("liveodds.fixtures.auth.issuer", JwtIssuer.ISSUER)
                     .set("liveodds.fixtures.auth.audience", JwtIssuer.AUDIENCE)
                     .set("camel.main.shutdown-timeout", "1")
                     .start()) {
            String ofB = issuer.sign(JwtIssuer.validClaims().claim("partner_id", "202").claim("azp", "101").build());
            assertThat(get(jwt, "/v1/liveodds/202/fixtures", "Bearer " + ofB).statusCode()).isEqualTo(200);
            assertThat(get(jwt, "/v1/liveodds/101/fixtures", "Bearer " + ofB).statusCode()).isEqualTo(404);
        }
    }

    /** Match id → is_liveodds, in the order listed. */
    private static Map<String, Boolean> liveOdds(HttpResponse<String> response) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        Map<String, Boolean> listed = new LinkedHashMap<>();
        for (JsonNode fixture : JSON.readTree(response.body()).path("fixtures")) {
            assertThat(fixture.path("is_liveodds").isBoolean()).isTrue();
            listed.put(fixture.path("fixture").path("id").asText(), fixture.path("is_liveodds").asBoolean());
        }
        return listed;
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + service.serverPort() + path);
    }

    private static HttpResponse<String> get(String path, String authorization) throws Exception {
        return get(service, path, authorization);
    }

    private static HttpResponse<String> get(RunningService target, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + target.serverPort() + path))
                .timeout(Duration.ofSeconds(10)).GET();
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
