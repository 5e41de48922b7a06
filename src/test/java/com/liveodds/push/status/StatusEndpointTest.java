package com.liveodds.push.status;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /admin/status} and the operations gauges over a run with faults: a match stuck on 503s, a dead letter
 * that is replayed, a partner token that lives 4 s, an upstream that falls silent.
 */
class StatusEndpointTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ADMIN = "Bearer status-admin-token";
    private static final long STUCK = 7001;

    @Test
    void statusAndGaugesFollowAFaultyRun() throws Exception {
        List<Long> others = java.util.stream.LongStream.rangeClosed(STUCK + 1, STUCK + 3).boxed().toList();
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything().tokenEndpointIssuing(WireMockPartner.TOKEN, 4)) {
            partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/42/match:" + STUCK + "/.*")).atPriority(1)
                    .willReturn(aResponse().withStatus(503)));
            StubMapping refuse = partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).atPriority(1)
                    .withHeader("Idempotency-Key", equalTo("refused-1")).willReturn(aResponse().withStatus(422)));
            try (RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                    .set("liveodds.admin.tokens", "status-admin-token")
                    .set("liveodds.upstream.max-silence", "3s")
                    .start()) {
                // the token (401) on the method served; a method not served is 405 with or without one
                assertThat(service.request("GET", "/admin/status", null).statusCode()).isEqualTo(401);
                assertThat(service.request("GET", "/admin/status", "Bearer fixtures-token").statusCode()).isEqualTo(401);
                assertThat(service.request("POST", "/admin/status", null).statusCode()).isEqualTo(405);
                assertThat(service.request("POST", "/admin/status", ADMIN).statusCode()).isEqualTo(405);

                service.drop("0-alive.json", Messages.alive());
                await().until(() -> Double.valueOf(1.0).equals(MetricsScrape.of(service).value("liveodds_upstream_up"))
                        && "UP".equals(status(service).at("/upstream/state").asText()));
                MetricsScrape before = MetricsScrape.of(service);
                assertThat(before.value("liveodds_token_expires_in_seconds")).as("no token yet").isNaN();
                assertThat(before.value("liveodds_dead_letters")).isZero();

                service.drop("a1.json", Messages.odds("ok-1", Messages.external("1", others.get(0))));
                service.drop("a2.json", Messages.odds("ok-2", Messages.external("2", others.get(1))));
                service.drop("b1.json", Messages.odds("stuck-1", Messages.external("9", STUCK)));
                service.drop("b2.json", Messages.odds("stuck-2", Messages.external("9", STUCK)));
                service.drop("c1.json", Messages.odds("refused-1", Messages.external("3", others.get(2))));
                service.drop("d1.json", "not json at all");

                await().atMost(Duration.ofSeconds(15)).until(() -> {
                    JsonNode s = status(service);
                    return s.at("/matches/0/in_retry").asBoolean() && s.at("/dead_letters/count").asInt() == 2;
                });
                JsonNode status = status(service);
                assertThat(status.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
                assertThat(status.path("upstream").path("last_heard").asText()).matches("\\d{4}-.*Z");
                assertThat(status.path("upstream").path("silent_for_s").isNumber()).isTrue();
                assertThat(status.path("source").path("kind").asText()).isEqualTo("file");
                assertThat(status.path("source").path("state").asText()).isEqualTo("UP");
                assertThat(status.path("partner").path("token_expires_in_s").asDouble()).isBetween(0.0, 4.0);
                assertThat(fieldNames(status.path("partner")))
                        .containsExactly("state", "last_success", "last_failure", "last_error", "token_expires_in_s", "paused",
                                "paused_since", "paused_reason", "id");
                assertThat(status.path("partner").path("paused").asBoolean()).isFalse();
                JsonNode stuck = status.path("matches").get(0);
                assertThat(stuck.path("match_id").asText()).isEqualTo("match:" + STUCK);
                assertThat(stuck.path("backlog").asInt()).isEqualTo(2);
                assertThat(stuck.path("attempts").asInt()).isPositive();
                assertThat(stuck.path("last_status").asInt()).isEqualTo(503);
                assertThat(stuck.path("next_heartbeat_in_s").isNull()).isTrue();
                assertThat(fieldNames(stuck)).containsExactly("match_id", "backlog", "in_retry", "attempts", "last_push_at",
                        "last_status", "last_error", "next_heartbeat_in_s");
                assertThat(status.path("matches")).extracting(m -> m.path("match_id").asText())
                        .contains("match:" + others.get(0), "match:" + others.get(1));
                JsonNode delivered = status.path("matches").get(1);
                assertThat(delivered.path("in_retry").asBoolean()).isFalse();
                assertThat(delivered.path("next_heartbeat_in_s").asDouble()).isBetween(0.0, 5.0);
                JsonNode letters = status.path("dead_letters").path("newest");
                assertThat(letters).hasSize(2);
                assertThat(fieldNames(letters.get(0))).containsExactly("id", "match_id", "type", "reason", "at");
                assertThat(letters).extracting(l -> l.path("reason").asText()).anyMatch(r -> r.contains("422"));
                assertThat(status.path("totals").path("delivered").asLong()).isEqualTo(2);
                assertThat(status.path("totals").path("dead_lettered").asLong()).isEqualTo(1);
                assertThat(status.path("totals").path("rejected").asLong()).isEqualTo(1);
                assertThat(status.path("totals").path("retried").asLong()).isPositive();
                assertThat(status.toString()).doesNotContain(WireMockPartner.TOKEN, "s3cr3t-value", "status-admin-token");

                MetricsScrape during = MetricsScrape.of(service);
                assertThat(during.value("liveodds_dead_letters")).isEqualTo(2.0);
                double tokenLife = during.value("liveodds_token_expires_in_seconds");
                assertThat(tokenLife).isBetween(0.0, 4.0);
                // the 4 s token is renewed at half its life: the gauge moves, and never shows an expired token
                await().atMost(Duration.ofSeconds(6)).until(() -> MetricsScrape.of(service).value("liveodds_token_expires_in_seconds") > tokenLife);
                assertThat(MetricsScrape.of(service).value("liveodds_token_expires_in_seconds")).isPositive();

                // the refused letter replayed by its id (the file name) once the partner takes it
                partner.server().removeStub(refuse);
                String refusedId = letters.findValuesAsText("id").stream().filter(id -> id.contains("refused-1")).findFirst().orElseThrow();
                var replay = service.request("POST", "/admin/dead-letters/replay?id=" + refusedId, ADMIN);
                assertThat(JSON.readTree(replay.body()).path("delivered").asInt()).isEqualTo(1);
                assertThat(MetricsScrape.of(service).value("liveodds_dead_letters")).isEqualTo(1.0);
                assertThat(status(service).at("/dead_letters/count").asInt()).isEqualTo(1);

                // upstream falls silent: the gauge and the status say so
                await().atMost(Duration.ofSeconds(8)).until(() -> MetricsScrape.of(service).value("liveodds_upstream_up") == 0.0);
                assertThat(status(service).at("/upstream/state").asText()).isEqualTo("DOWN");
            }
        }
    }

    private static JsonNode status(RunningService service) throws Exception {
        var response = service.request("GET", "/admin/status", ADMIN);
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        return JSON.readTree(response.body());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
