package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Map;

import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.RunningService;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Test;

/**
 * The bundle in a host application: a plain camel-main with nothing of ours but the route files from the class path
 * (no application.properties of ours, no launcher). Without its partner settings it does not fall back to the
 * sandbox: start-up stops with one line naming the first missing key.
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
