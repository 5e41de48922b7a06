package com.liveodds.push.partner;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;

import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/** The readiness check "partner" as an operator sees it on /observe/health of the running service. */
class PartnerReadinessTest {

    @Test
    void aPartnerThatKeepsFailingTurnsReadinessDownNamingItAndTheNextSuccessTurnsItUp() throws Exception {
        try (WireMockPartner partner = new WireMockPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.partner.down-after", "1s").start()) {
            partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(503)));
            service.drop("p-001.json", Messages.odds("ready-1", Messages.external("1", 901)));

            await().atMost(Duration.ofSeconds(20)).until(() -> partnerDown(service.management("/observe/health")));
            assertThat(service.management("/observe/health/live").statusCode()).as("liveness stays up").isEqualTo(200);
            PartnerHealth health = service.partner("").health();
            assertThat(health.partner().lastError()).contains("token request").contains("HTTP 503");
            assertThat(partner.pushes()).as("no push goes out without a token").isEmpty();

            partner.acceptingEverything();
            await().atMost(Duration.ofSeconds(20)).until(() -> service.management("/observe/health").statusCode() == 200);
            assertThat(health.partner().up()).isTrue();
            assertThat(service.partner("").tokens().lifeLeft()).isPositive();

            // the attempts of the push route land in the service's metrics
            await().atMost(Duration.ofSeconds(30)).until(() -> service.management("/observe/metrics").body()
                    .matches("(?s).*liveodds_push_attempt_seconds_count\\{outcome=\"2xx\",?\\} [1-9].*"));
            assertThat(service.management("/observe/metrics").body())
                    .contains("liveodds_push_attempt_seconds_bucket{outcome=\"2xx\"");
        }
    }

    private static boolean partnerDown(HttpResponse<String> health) {
        return health.statusCode() == 503 && health.body().contains("\"name\":\"partner\"")
                && health.body().contains("\"status\":\"DOWN\"");
    }
}
