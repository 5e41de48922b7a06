package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartupSettingsTest {

    private final Map<String, String> settings = new HashMap<>();

    @Test
    void noPartnerSettingMeansTheEmbeddedSandboxWithTwoPartners() {
        Map<String, String> derived = StartupSettings.derive(settings::get);
        // contract 16: the embedded default delivers to two sandbox partners with different bookings
        assertThat(derived).containsEntry("liveodds.sandbox.enabled", "true")
                .containsEntry("liveodds.partners", "sandbox-a,sandbox-b")
                .containsEntry("liveodds.partners.sandbox-a.id", "1")
                .containsEntry("liveodds.partners.sandbox-a.base-url", "http://127.0.0.1:8080/sandbox")
                .containsEntry("liveodds.partners.sandbox-a.booking", "all")
                .containsEntry("liveodds.partners.sandbox-b.id", "2")
                .containsEntry("liveodds.partners.sandbox-b.auth-url", "http://127.0.0.1:8080/sandbox")
                .containsEntry("liveodds.demo.enabled", "true");
        assertThat(derived.get("liveodds.partners.sandbox-b.booking")).endsWith("data/sandbox/booking-b.txt");
        assertThat(derived.keySet()).noneMatch(k -> k.startsWith("liveodds.partner."));
        String tokenA = derived.get("liveodds.partners.sandbox-a.fixtures-tokens");
        String tokenB = derived.get("liveodds.partners.sandbox-b.fixtures-tokens");
        assertThat(tokenA).startsWith("sandbox-").isNotEqualTo(tokenB);
        assertThat(tokenB).startsWith("sandbox-");
        // the token file's token stays the admin token, and is the HTTP source's too
        assertThat(derived).containsEntry("liveodds.admin.tokens", tokenA).containsEntry("liveodds.source.http.tokens", tokenA);
        assertThat(derived.get("liveodds.fixtures.auth.tokens")).isEmpty();
        assertThat(PartnerSettings.all(key -> derived.containsKey(key) ? derived.get(key) : settings.get(key)))
                .extracting(PartnerSettings::clientId).containsExactly("sandbox-client", "sandbox-client-b");
    }

    @Test
    void sandboxBsBookingIsACopyOfTheTrackedTemplateMadeOnceSoBookingLeavesTheCheckoutClean(@TempDir Path home) throws IOException {
        Path template = Files.createDirectories(home.resolve("data/sandbox")).resolve("booking-b.template.txt");
        Files.writeString(template, "match:1\n");
        settings.put("liveodds.home", home.toString());
        Path booking = home.resolve(StartupSettings.SANDBOX_B_BOOKING);
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.partners.sandbox-b.booking", booking.toString());
        assertThat(booking).hasContent("match:1");
        // the booking API and hand edits change the copy, which the next start keeps; the template stays as checked out
        Files.writeString(booking, "match:2\n");
        StartupSettings.derive(settings::get);
        assertThat(booking).hasContent("match:2");
        assertThat(template).hasContent("match:1");
    }

    @Test
    void theSandboxAskedForWithPartnersServesThemAndDerivesNoSinglePartnerSetting() {
        settings.put("liveodds.sandbox.enabled", "true");
        settings.put("liveodds.partners", "x,y");
        for (String name : new String[] {"x", "y"}) {
            settings.put("liveodds.partners." + name + ".id", name.equals("x") ? "10" : "11");
            settings.put("liveodds.partners." + name + ".base-url", "http://127.0.0.1:8080/sandbox");
            settings.put("liveodds.partners." + name + ".auth-url", "http://127.0.0.1:8080/sandbox");
            settings.put("liveodds.partners." + name + ".client-id", "c-" + name);
            settings.put("liveodds.partners." + name + ".client-secret", "s-" + name);
        }
        Map<String, String> derived = StartupSettings.derive(settings::get);
        assertThat(derived).containsEntry("liveodds.sandbox.enabled", "true").doesNotContainKey("liveodds.partners");
        assertThat(derived.keySet()).noneMatch(k -> k.startsWith("liveodds.partner.") || k.startsWith("liveodds.partners."));
    }

    @Test
    void anyPartnerSettingTurnsTheSandboxOff() {
        settings.put("liveodds.partners", "a");
        settings.put("liveodds.partners.a.id", "7");
        settings.put("liveodds.partners.a.base-url", "https://a.example");
        settings.put("liveodds.partners.a.auth-url", "https://auth.a.example");
        settings.put("liveodds.partners.a.client-id", "ca");
        settings.put("liveodds.partners.a.client-secret", "sa");
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.sandbox.enabled", "false")
                .containsEntry("liveodds.demo.enabled", "false");
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

    private void twoPartners() {
        settings.put("liveodds.partners", "a,b");
        for (String name : new String[] {"a", "b"}) {
            String key = "liveodds.partners." + name + ".";
            settings.put(key + "id", name.equals("a") ? "101" : "202");
            settings.put(key + "base-url", "https://" + name + ".example/api");
            settings.put(key + "auth-url", "https://auth." + name + ".example");
            settings.put(key + "client-id", "client-" + name);
            settings.put(key + "client-secret", "secret-of-" + name);
        }
    }

    @Test
    void aListOfPartnersIsCheckedPartnerByPartnerAndAMistakeNamesItsKey() {
        twoPartners();
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.sandbox.enabled", "false");

        settings.remove("liveodds.partners.b.client-secret");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessage("missing required setting "
                + "liveodds.partners.b.client-secret (set -Dliveodds.partners.b.client-secret=... or environment variable "
                + "LIVEODDS_PARTNERS_B_CLIENT_SECRET)");
        settings.put("liveodds.partners.b.client-secret", "secret-of-b");

        for (String bad : new String[] {"a,B", "a,b c", "a,,b", "a,b/../c", "a,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "a,b\nc"}) {
            settings.put("liveodds.partners", bad);
            assertThatThrownBy(() -> StartupSettings.derive(settings::get)).as(bad)
                    .hasMessageContaining("liveodds.partners: partner name").hasMessageContaining("must be 1 to 32 of a-z, 0-9 and -")
                    .message().doesNotContain("\n");
        }
        settings.put("liveodds.partners", "a,b,a");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessage("liveodds.partners: partner a is listed twice");
        settings.put("liveodds.partners", "a,b");

        for (String bad : new String[] {"0", "-3", "many", "1.5", "99999999999"}) {
            settings.put("liveodds.partners.a.max-in-flight", bad);
            assertThatThrownBy(() -> StartupSettings.derive(settings::get)).as(bad)
                    .hasMessage("liveodds.partners.a.max-in-flight: not a whole number of at least 1: '" + bad + "'");
        }
        settings.remove("liveodds.partners.a.max-in-flight");

        // the id is one path segment of every push and fixtures path
        String id = settings.get("liveodds.partners.a.id");
        for (String bad : new String[] {"x/y", "..", "4 2", "a?b", "%2F", "x".repeat(65)}) {
            settings.put("liveodds.partners.a.id", bad);
            assertThatThrownBy(() -> StartupSettings.derive(settings::get)).as(bad)
                    .hasMessageStartingWith("liveodds.partners.a.id must be 1 to 64 of");
        }
        settings.put("liveodds.partners.a.id", id);

        settings.put("liveodds.partners.b.base-url", "ftp://b.example");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessageStartingWith("liveodds.partners.b.base-url: ");
        settings.put("liveodds.partners.b.base-url", "https://b.example/api");
    }

    @Test
    void theSinglePartnersSettingsBesideAListStopStartUp() {
        twoPartners();
        for (String key : new String[] {"liveodds.partner.id", "liveodds.partner.client-secret", "liveodds.partner.audience",
                "liveodds.fixtures.auth.tokens"}) {
            settings.put(key, "x");
            assertThatThrownBy(() -> StartupSettings.derive(settings::get)).as(key)
                    .hasMessageStartingWith(key + " is not used when liveodds.partners is set");
            settings.remove(key);
        }
    }

    @Test
    void aBookingFileThatIsNotThereStopsStartUpNamingTheKey(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        twoPartners();
        settings.put("liveodds.partners.b.booking", dir.resolve("missing.txt").toString());
        assertThatThrownBy(() -> StartupSettings.derive(settings::get))
                .hasMessage("liveodds.partners.b.booking: booking file " + dir.resolve("missing.txt") + " is not a readable file (or write all)");
        settings.put("liveodds.partners.b.booking", dir.toString());
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessageStartingWith("liveodds.partners.b.booking: ");
        java.nio.file.Files.writeString(dir.resolve("b.txt"), "match:1\n");
        settings.put("liveodds.partners.b.booking", dir.resolve("b.txt").toString());
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.sandbox.enabled", "false");
    }

    @Test
    void aPartnerIdOrAFixturesTokenBelongsToOnePartner() {
        twoPartners();
        settings.put("liveodds.partners.b.id", "101");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessage("liveodds.partners.b.id: partner id 101 is partner a's too");
        settings.put("liveodds.partners.b.id", "202");
        settings.put("liveodds.partners.a.fixtures-tokens", "tok-a,shared-token-1");
        settings.put("liveodds.partners.b.fixtures-tokens", "shared-token-1");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get))
                .hasMessage("liveodds.partners.b.fixtures-tokens: a token of partner a too (each fixtures token belongs to one partner)")
                .message().doesNotContain("shared-token-1");
    }

    @Test
    void theHttpSourceOfSeveralPartnersNeedsItsOwnTokens() {
        twoPartners();
        settings.put("liveodds.partners.a.fixtures-tokens", "tok-a");
        settings.put("liveodds.source", "http");
        assertThatThrownBy(() -> StartupSettings.derive(settings::get)).hasMessage("missing required setting "
                + "liveodds.source.http.tokens (set -Dliveodds.source.http.tokens=... or environment variable LIVEODDS_SOURCE_HTTP_TOKENS)");
        settings.put("liveodds.source.http.tokens", "ingest-1");
        assertThat(StartupSettings.derive(settings::get)).containsEntry(StartupSettings.INGEST_MODE, "static")
                .containsEntry(StartupSettings.INGEST_TOKENS, "ingest-1");
        // jwt mode for the fixtures: the HTTP source stays static, with its own tokens
        settings.put("liveodds.fixtures.auth.mode", "jwt");
        assertThat(StartupSettings.derive(settings::get)).containsEntry(StartupSettings.INGEST_MODE, "static");
    }

    @Test
    void onePartnersHttpSourceIsGuardedAsItsFixturesAre() {
        settings.put("liveodds.partner.base-url", "https://partner.example/api");
        settings.put("liveodds.partner.id", "42");
        settings.put("liveodds.partner.auth-url", "https://auth.example");
        settings.put("liveodds.partner.client-id", "id");
        settings.put("liveodds.partner.client-secret", "x");
        settings.put("liveodds.fixtures.auth.tokens", "fx-1");
        settings.put("liveodds.source", "http");
        assertThat(StartupSettings.derive(settings::get)).containsEntry(StartupSettings.INGEST_MODE, "static")
                .containsEntry(StartupSettings.INGEST_TOKENS, "fx-1")
                .containsEntry(StartupSettings.INGEST_TOKENS_SETTING, "liveodds.fixtures.auth.tokens");
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
