package com.liveodds.push.token;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The token bean against a real token endpoint on loopback (WireMock). */
class PartnerTokenProviderTest {

    private WireMockPartner partner;
    private PartnerTokenProvider provider;
    private CapturedLogs logs;

    @BeforeEach
    void setUp() {
        partner = new WireMockPartner();
        logs = CapturedLogs.of(PartnerTokenProvider.class);
    }

    @AfterEach
    void tearDown() {
        logs.close();
        if (provider != null) {
            provider.stop();
        }
        partner.close();
    }

    private PartnerTokenProvider provider(Duration margin) {
        provider = new PartnerTokenProvider(URI.create(partner.authUrl() + "/oauth/token"), "client-7", "very-secret",
                "https://partner.example/api", margin, Duration.ofSeconds(5), Clock.systemUTC());
        return provider;
    }

    @Test
    void sendsTheFormOfTheSpecWithCredentialsInTheBody() {
        partner.tokenEndpointIssuing("abc", 3600);
        assertThat(provider(Duration.ofSeconds(60)).authorizationHeader()).isEqualTo("Bearer abc");

        LoggedRequest request = partner.tokenRequests().get(0);
        assertThat(request.getHeader("Content-Type")).startsWith("application/x-www-form-urlencoded");
        assertThat(request.containsHeader("Authorization")).as("no HTTP Basic").isFalse();
        assertThat(form(request.getBodyAsString())).containsEntry("grant_type", "client_credentials")
                .containsEntry("client_id", "client-7").containsEntry("client_secret", "very-secret")
                .containsEntry("audience", "https://partner.example/api");
    }

    @Test
    void oneFetchServesManyConcurrentCallers() throws Exception {
        partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(200)
                .withFixedDelay(300).withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"shared\",\"token_type\":\"Bearer\",\"expires_in\":3600}")));
        PartnerTokenProvider tokens = provider(Duration.ofSeconds(60));
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                results.add(pool.submit(tokens::token));
            }
            for (Future<String> r : results) {
                assertThat(r.get()).isEqualTo("shared");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(partner.tokenRequests()).hasSize(1);
    }

    @Test
    void renewsInTheBackgroundBeforeExpiryAndNeverHandsOutAnExpiredToken() {
        partner.tokenEndpointIssuing("short", 2);
        PartnerTokenProvider tokens = provider(Duration.ofSeconds(60));
        tokens.token();
        // lifetime 2 s, margin min(60 s, 1 s): renewed after about 1 s without anyone asking
        await().atMost(Duration.ofSeconds(4)).until(() -> partner.tokenRequests().size() >= 3);
        assertThat(tokens.lifeLeft()).isPositive();
    }

    @Test
    void anExpiredTokenShowsNoLifeLeftRatherThanANegativeOne() {
        partner.tokenEndpointIssuing("brief", 60);
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-02T12:00:00Z"));
        Clock clock = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        provider = new PartnerTokenProvider(URI.create(partner.authUrl() + "/oauth/token"), "client-7", "very-secret",
                "https://partner.example/api", Duration.ofSeconds(10), Duration.ofSeconds(5), clock);
        provider.token();
        now.set(now.get().plusSeconds(45));
        assertThat(provider.lifeLeft()).isEqualTo(Duration.ofSeconds(15));
        // its renewal late: the status page and the gauge say 0 s left, not "expires in -5 s"
        now.set(now.get().plusSeconds(20));
        assertThat(provider.lifeLeft()).isZero();
    }

    @Test
    void invalidatedTokenIsReplacedOnNextUse() {
        partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).inScenario("rotate").whenScenarioStateIs("Started")
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"access_token\":\"first\",\"token_type\":\"Bearer\",\"expires_in\":3600}"))
                .willSetStateTo("second"));
        partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).inScenario("rotate").whenScenarioStateIs("second")
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"access_token\":\"second\",\"token_type\":\"Bearer\",\"expires_in\":3600}")));
        PartnerTokenProvider tokens = provider(Duration.ofSeconds(60));
        assertThat(tokens.token()).isEqualTo("first");
        tokens.invalidate("some-older-token");
        assertThat(tokens.token()).as("a stale 401 does not throw away a newer token").isEqualTo("first");
        tokens.invalidate("first");
        assertThat(tokens.token()).isEqualTo("second");
    }

    @Test
    void aFailingTokenEndpointIsReportedClearlyWithoutTheSecretAndRecovers() {
        partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(401)
                .withHeader("Content-Type", "application/json").withBody("{\"error\":\"invalid_client\"}")));
        PartnerTokenProvider tokens = provider(Duration.ofSeconds(60));
        assertThatThrownBy(tokens::token).isInstanceOf(TokenUnavailableException.class)
                .hasMessageContaining("HTTP 401 invalid_client").hasMessageNotContaining("very-secret");

        partner.server().resetAll();
        partner.tokenEndpointIssuing("back", 3600);
        await().atMost(Duration.ofSeconds(3)).ignoreExceptions().until(() -> "back".equals(tokens.token()));
        assertThat(logs.messages())
                .anyMatch(m -> m.contains("HTTP 401 invalid_client"))
                .noneMatch(m -> m.contains("very-secret") || m.contains("back"));
    }

    @Test
    void anUnreachableTokenEndpointIsATokenUnavailableError() {
        provider = new PartnerTokenProvider(URI.create("http://127.0.0.1:1/oauth/token"), "c", "s", "a",
                Duration.ofSeconds(60), Duration.ofSeconds(1), Clock.systemUTC());
        assertThatThrownBy(provider::token).isInstanceOf(TokenUnavailableException.class).hasMessageContaining("unreachable");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "1e30                      | 86400000",
            "99999999999999999999999   | 86400000",
            "86401                     | 86400000",
            "3600                      | 3600000",
            "1.5                       | 1500",
            "'\"3600\"'              | 3600000",
            "-5                        | 60000",
            "0                         | 60000",
            "'\"soon\"'              | 60000",
            "true                      | 60000",
            "null                      | 60000",
            "'{\"a\":1}'             | 60000"})
    void anyExpiresInGivesALifetimeCappedAt24Hours(String expiresIn, long millis) throws Exception {
        JsonNode value = new ObjectMapper().readTree("{\"expires_in\":" + expiresIn + "}").get("expires_in");
        assertThat(PartnerTokenProvider.lifetime(value)).isEqualTo(Duration.ofMillis(millis));
        assertThat(PartnerTokenProvider.lifetime(null)).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void anAbsurdExpiresInFromTheEndpointIsATokenForADay() {
        partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"long\",\"token_type\":\"Bearer\",\"expires_in\":1e30}")));
        PartnerTokenProvider tokens = provider(Duration.ofSeconds(60));
        assertThat(tokens.token()).isEqualTo("long");
        assertThat(tokens.lifeLeft()).isBetween(Duration.ofHours(23), Duration.ofHours(24));
    }

    @Test
    void tokenAsyncSharesTheOneFetchWithoutHoldingAThread() {
        partner.server().stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(200)
                .withFixedDelay(300).withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"async\",\"token_type\":\"Bearer\",\"expires_in\":3600}")));
        PartnerTokenProvider tokens = provider(Duration.ofSeconds(60));
        List<CompletableFuture<String>> waiting = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            waiting.add(tokens.tokenAsync());
        }
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        assertThat(waiting).allMatch(f -> f.join().equals("async"));
        assertThat(partner.tokenRequests()).hasSize(1);
        assertThat(tokens.tokenAsync()).isCompletedWithValue("async");
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new HashMap<>();
        for (String pair : body.split("&")) {
            String[] kv = pair.split("=", 2);
            form.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8), URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
        return form;
    }

}
