package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;

import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.RunningService;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle in a host application: a plain camel-main with nothing of ours but the route files from the class path
 * (no application.properties of ours, no launcher). Without its partner settings it does not fall back to the
 * sandbox: start-up stops with one line naming the first missing key. Without an HTTP server of the host's own, the
 * bundle's HTTP routes get Camel's.
 */
class HostStartupTest {

    @Test
    void aHostWithoutPartnerSettingsStopsNamingTheFirstKeyInsteadOfRunningTheSandbox() {
        assertThat(startHost(Map.of())).isEqualTo("missing required setting liveodds.partner.id "
                + "(set -Dliveodds.partner.id=... or environment variable LIVEODDS_PARTNER_ID)");
    }

    @Test
    void aHostMissingOnePartnerSettingStopsWithOneLogLineNamingIt() {
        try (CapturedLogs logs = CapturedLogs.all()) {
            String failure = startHost(Map.of("liveodds.partner.id", "42",
                    "liveodds.partner.base-url", "http://127.0.0.1:1/partner",
                    "liveodds.partner.auth-url", "http://127.0.0.1:1/auth",
                    "liveodds.partner.client-id", "abc"));
            assertThat(failure).startsWith("missing required setting liveodds.partner.client-secret ");
            assertThat(logs.messages()).filteredOn(m -> m.contains("liveodds.partner.client-secret")).containsExactly(
                    "liveodds-push cannot start: " + failure);
        }
    }

    @Test
    void aHostWithoutAnHttpServerOfItsOwnGetsTheFixturesApiOnCamelsServer(@TempDir Path home) throws Exception {
        int port = RunningService.freePort();
        Main main = new Main();
        main.addOverrideProperty("camel.main.routes-include-pattern", "classpath:liveodds/routes/*.yaml");
        main.addOverrideProperty("camel.server.port", Integer.toString(port));
        main.addOverrideProperty("camel.server.host", "127.0.0.1");
        main.addOverrideProperty("liveodds.home", home.toString());
        Map.of("liveodds.partner.id", "42", "liveodds.partner.base-url", "http://127.0.0.1:1/partner",
                "liveodds.partner.auth-url", "http://127.0.0.1:1/auth", "liveodds.partner.client-id", "abc",
                "liveodds.partner.client-secret", "def").forEach(main::addOverrideProperty);
        main.start();
        try {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/v1/liveodds/42/fixtures")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(401);
            assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        } finally {
            main.stop();
        }
    }

    /** @return the message of the root cause of the start-up failure */
    private static String startHost(Map<String, String> settings) {
        Main main = new Main();
        main.addOverrideProperty("camel.main.routes-include-pattern", "classpath:liveodds/routes/*.yaml");
        main.addOverrideProperty("camel.server.enabled", "true");
        main.addOverrideProperty("camel.server.port", Integer.toString(RunningService.freePort()));
        settings.forEach(main::addOverrideProperty);
        Throwable failure = catchThrowable(main::start);
        try {
            main.stop();
        } catch (Exception ignored) {
            // it never started
        }
        assertThat(failure).as("start-up must fail").isNotNull();
        return rootCause(failure).getMessage();
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
