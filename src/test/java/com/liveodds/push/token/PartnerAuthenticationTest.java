package com.liveodds.push.token;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.sandbox.PartnerSandbox;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/** The token as the partner sees it, over real HTTP: shared, renewed before expiry, replaced after a 401. */
class PartnerAuthenticationTest {

    @Test
    void oneTokenServesManyPushes() {
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).start()) {
            for (int i = 0; i < 40; i++) {
                service.drop(String.format("m-%03d.json", i), Messages.odds("many-" + i, Messages.external("1", 100 + i % 8)));
            }
            await().atMost(Duration.ofSeconds(15)).until(() -> partner.pushes("odds").size() >= 40);
            assertThat(partner.tokenRequests()).hasSize(1);
        }
    }

    @Test
    void aRejectedTokenLeadsToOneNewTokenAndASuccessfulRetry() {
        try (WireMockPartner partner = new WireMockPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).start()) {
            var wm = partner.server();
            wm.stubFor(post(urlEqualTo("/auth/oauth/token")).inScenario("tokens").whenScenarioStateIs("Started")
                    .willReturn(token("revoked-soon")).willSetStateTo("renewed"));
            wm.stubFor(post(urlEqualTo("/auth/oauth/token")).inScenario("tokens").whenScenarioStateIs("renewed")
                    .willReturn(token("fresh")));
            wm.stubFor(post(urlPathMatching("/partner/.*")).withHeader("Authorization", equalTo("Bearer revoked-soon"))
                    .willReturn(aResponse().withStatus(401)));
            wm.stubFor(post(urlPathMatching("/partner/.*")).withHeader("Authorization", equalTo("Bearer fresh"))
                    .willReturn(aResponse().withStatus(202)));

            service.drop("r-001.json", Messages.odds("revoked-1", Messages.external("1", 555)));
            await().atMost(Duration.ofSeconds(30)).until(() -> partner.pushes().size() >= 2);

            List<LoggedRequest> pushes = partner.pushes();
            assertThat(pushes).extracting(r -> r.getHeader("Authorization")).containsExactly("Bearer revoked-soon", "Bearer fresh");
            assertThat(pushes).extracting(r -> r.getHeader("Idempotency-Key")).containsOnly("revoked-1");
            assertThat(partner.tokenRequests()).hasSize(2);
            await().atMost(Duration.ofSeconds(5)).until(() -> service.done().resolve("r-001.json").toFile().exists());
            assertThat(service.deadLetterCount()).isZero();
        }
    }

    @Test
    void shortLivedTokensAreRenewedBeforeExpirySoThePartnerNeverAnswers401() throws Exception {
        // the embedded sandbox is strict: it answers 401 to any expired or unknown token
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        try (RunningService service = RunningService.builder()
                .set("liveodds.sandbox.token-lifetime", "3s")
                .set("liveodds.demo.producer", "false")
                .start()) {
            PartnerSandbox sandbox = service.bean("liveoddsPartnerSandbox", PartnerSandbox.class);
            AtomicInteger sent = new AtomicInteger();
            producer.scheduleAtFixedRate(() -> {
                int n = sent.incrementAndGet();
                service.drop(String.format("s-%05d.json", n), Messages.odds("short-" + n, Messages.external("1", 700 + n % 4)));
            }, 0, 100, TimeUnit.MILLISECONDS);

            // three lifetimes of pushes
            await().atMost(Duration.ofSeconds(20)).until(() -> sandbox.issuedCount() >= 4 && sandbox.acceptedCount() >= 60);
            assertThat(sandbox.unauthorizedCount()).isZero();
        } finally {
            producer.shutdownNow();
        }
    }

    private static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder token(String value) {
        return aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"" + value + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
    }
}
