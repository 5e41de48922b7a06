package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

class StartupSettingsTest {

    private final Map<String, String> settings = new HashMap<>();

    @Test
    void noPartnerSettingMeansTheEmbeddedSandbox() {
        Map<String, String> derived = StartupSettings.derive(settings::get);
        assertThat(derived).containsEntry("liveodds.sandbox.enabled", "true")
                .containsEntry("liveodds.partner.base-url", "http://127.0.0.1:8080/sandbox")
                .containsEntry("liveodds.partner.audience", "http://127.0.0.1:8080/sandbox")
                .containsEntry("liveodds.demo.enabled", "true");
        assertThat(derived.get("liveodds.fixtures.auth.tokens")).startsWith("sandbox-");
    }

    @Test
    void aRealPartnerNeedsEveryKeyAndNamesTheMissingOne() {
        settings.put("liveodds.partner.base-url", "https://partner.example/api");
        settings.put("liveodds.partner.id", "42");
        settings.put("liveodds.partner.auth-url", "https://auth.example");
        settings.put("liveodds.partner.client-id", "id");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get))
                .hasMessage("missing required setting liveodds.partner.client-secret "
                        + "(set -Dliveodds.partner.client-secret=... or environment variable LIVEODDS_PARTNER_CLIENT_SECRET)");
        settings.put("liveodds.partner.client-secret", "x");
        Map<String, String> derived = StartupSettings.derive(settings::get);
        assertThat(derived).containsEntry("liveodds.sandbox.enabled", "false")
                .containsEntry("liveodds.partner.audience", "https://partner.example/api")
                .containsEntry("liveodds.demo.enabled", "false")
                .doesNotContainKey("liveodds.partner.base-url");
    }

    @Test
    void theSourceSettingIsOneOfTheFourAndOnlyTheFileSourceGetsTheDemoCard() {
        settings.put("liveodds.source", "kafka");
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.demo.enabled", "false");
        settings.put("liveodds.source", "ftp");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessageContaining("liveodds.source must be one of");
    }

    @Test
    void durationsAndSizesUseTheContractNotation() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(Durations.parse("2h")).isEqualTo(Duration.ofHours(2));
        assertThat(Durations.parse("0")).isZero();
        assertThatThrownBy(() -> Durations.parse("5 minutes")).hasMessageContaining("500ms, 5s, 10m or 2h");
        assertThat(Durations.parseBytes("1MB")).isEqualTo(1024L * 1024);
        assertThat(Durations.parseBytes("512KB")).isEqualTo(512L * 1024);
    }
}
