package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded default (no partner setting at all, contract 16): the demo card goes to two sandbox partners with
 * different bookings, and the log shows it: sandbox-a gets every match, sandbox-b only the one data/sandbox/booking-b.txt
 * books. Each has its own fixtures token (the token file's stays the admin token and opens sandbox-a's listing).
 */
class EmbeddedSandboxPartnersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BOOKED_BY_B = "match:41234567";

    @Test
    void theDemoCardFansOutToTwoSandboxPartnersEachWithItsBooking(@TempDir Path work) throws Exception {
        try (CapturedLogs logs = CapturedLogs.all();
             RunningService service = RunningService.builder().work(work).set("liveodds.demo.period", "100ms")
                     .set("camel.main.shutdown-timeout", "1").start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> received(logs, "sandbox-a").stream().anyMatch(m -> !m.contains(BOOKED_BY_B))
                    && received(logs, "sandbox-b").stream().anyMatch(m -> m.contains(BOOKED_BY_B)));
            assertThat(received(logs, "sandbox-b")).allMatch(m -> m.contains(BOOKED_BY_B));
            assertThat(logs.messages()).anyMatch(m -> m.contains("partners sandbox-a (booking all) and sandbox-b (booking data/sandbox/booking-b.txt)"));

            // the README's curl line: the token file opens partner 1's fixtures (sandbox-a), and is the admin token
            Path tokenFile = work.resolve(".sandbox-token");
            Path tokenFileB = work.resolve(".sandbox-token-b");
            String tokenA = Files.readString(tokenFile);
            String tokenB = Files.readString(tokenFileB);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFileB))).isEqualTo("rw-------");
            assertThat(logs.messages()).anyMatch(m -> m.contains("$(cat " + tokenFile + ")") && m.contains("/v1/liveodds/1/fixtures"))
                    .anyMatch(m -> m.contains("$(cat " + tokenFileB + ")") && m.contains("/v1/liveodds/2/fixtures"))
                    .noneMatch(m -> m.contains(tokenA) || m.contains(tokenB));
            assertThat(service.request("GET", "/v1/liveodds/1/fixtures", "Bearer " + tokenA).statusCode()).isEqualTo(200);
            assertThat(service.request("GET", "/admin/dead-letters", "Bearer " + tokenA).statusCode()).isEqualTo(200);
            assertThat(service.request("GET", "/v1/liveodds/2/fixtures", "Bearer " + tokenA).statusCode()).isEqualTo(404);
            assertThat(service.request("GET", "/v1/liveodds/1/fixtures", "Bearer " + tokenB).statusCode()).isEqualTo(404);
            JsonNode forB = JSON.readTree(service.request("GET", "/v1/liveodds/2/fixtures", "Bearer " + tokenB).body());
            for (JsonNode fixture : forB.path("fixtures")) {
                assertThat(fixture.path("is_liveodds").asBoolean()).as(fixture.path("fixture").toString())
                        .isEqualTo(fixture.path("fixture").path("id").asText().equals(BOOKED_BY_B));
            }
            assertThat(forB.path("fixtures").size()).isGreaterThan(1);

            // the sandbox's token endpoint knows both clients; a token is good on its own partner's path only
            assertThat(sandboxToken(service, "sandbox-client-b", "sandbox-secret").statusCode()).isEqualTo(401);
            assertThat(sandboxToken(service, "sandbox-client", "sandbox-secret-b").statusCode()).isEqualTo(401);
            String ofA = JSON.readTree(sandboxToken(service, "sandbox-client", "sandbox-secret").body()).path("access_token").asText();
            String ofB = JSON.readTree(sandboxToken(service, "sandbox-client-b", "sandbox-secret-b").body()).path("access_token").asText();
            assertThat(sandboxPush(service, ofA, "1").statusCode()).isEqualTo(202);
            assertThat(sandboxPush(service, ofB, "2").statusCode()).isEqualTo(202);
            assertThat(sandboxPush(service, ofA, "2").statusCode()).isEqualTo(404);
            assertThat(sandboxPush(service, ofB, "1").statusCode()).isEqualTo(404);
        }
    }

    private static HttpResponse<String> sandboxToken(RunningService service, String clientId, String secret) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/sandbox/oauth/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&client_id=" + clientId
                        + "&client_secret=" + secret + "&audience=x")).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> sandboxPush(RunningService service, String token, String partnerId) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/sandbox/v1/liveodds/"
                        + partnerId + "/match:1/heartbeat")).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aPartnerSettingTurnsTheSandboxPartnersOff() throws Exception {
        try (RunningService service = RunningService.builder().partner("http://127.0.0.1:1/partner", "http://127.0.0.1:1/auth")
                .set("camel.main.shutdown-timeout", "1").start()) {
            assertThat(service.context().getRoute("liveodds-push")).isNotNull();
            assertThat(service.context().getRoute("liveodds-push-sandbox-a")).isNull();
            assertThat(service.context().getRouteController().getRouteStatus("liveodds-sandbox-token").isStarted()).isFalse();
        }
    }

    @Test
    void theSandboxAskedForWithAListOfPartnersStandsInForThoseWithTheirOwnCredentials() throws Exception {
        String port = Integer.toString(RunningService.freePort());
        String sandbox = "http://127.0.0.1:" + port + "/sandbox";
        try (CapturedLogs logs = CapturedLogs.all();
             RunningService service = RunningService.builder().set("camel.server.port", port)
                     .partner("x", "70", sandbox, sandbox).partner("y", "71", sandbox, sandbox)
                     .set("liveodds.sandbox.enabled", "true")
                     .set("camel.main.shutdown-timeout", "1").start()) {
            service.drop("x-1.json", com.liveodds.push.support.Messages.odds("asked-1", com.liveodds.push.support.Messages.external("1", 77)));
            await().atMost(Duration.ofSeconds(15)).until(() -> received(logs, "x").size() >= 1 && received(logs, "y").size() >= 1);
            assertThat(service.setting("liveodds.partner.id")).isNull();
            assertThat(service.context().getPropertiesComponent().resolveProperty("liveodds.partner.id").orElse("")).isEmpty();
            assertThat(logs.messages()).noneMatch(m -> m.contains("sandbox-b"));
        }
    }

    /** The sandbox's log lines of what partner {@code name} accepted. */
    private static List<String> received(CapturedLogs logs, String name) {
        return logs.messages().stream().filter(m -> m.startsWith("sandbox partner " + name + " <- ")).toList();
    }
}
