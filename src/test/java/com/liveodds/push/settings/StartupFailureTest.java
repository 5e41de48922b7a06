package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.LiveoddsPush;
import org.junit.jupiter.api.Test;

/** Start-up as an operator runs it, in its own process: a half-configured partner stops it with one clear line
 * (the partner id given by environment variable counts). */
class StartupFailureTest {

    @Test
    void aMissingPartnerSettingStopsStartUpWithOneLineNamingTheKey() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder builder = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "-Dliveodds.partner.base-url=http://127.0.0.1:1/partner",
                "-Dliveodds.partner.auth-url=http://127.0.0.1:1/auth",
                "-Dliveodds.partner.client-id=abc",
                LiveoddsPush.class.getName()));
        builder.environment().put("LIVEODDS_PARTNER_ID", "42");
        Process process = builder.start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(stderr.lines()).hasSize(1);
        assertThat(stderr).isEqualTo("liveodds-push: cannot start: missing required setting liveodds.partner.client-secret "
                + "(set -Dliveodds.partner.client-secret=... or environment variable LIVEODDS_PARTNER_CLIENT_SECRET)");
    }

    @Test
    void aFolderWithoutTheServicesFilesStopsStartUpWithOneLineSayingWhereToRunIt(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process process = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"), LiveoddsPush.class.getName()))
                .directory(dir.toFile()).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(stderr.lines()).hasSize(1);
        assertThat(stderr).isEqualTo("liveodds-push: cannot start: no application.properties in " + dir.toRealPath()
                + ": run from the folder that holds it and routes/, or give it with --config-dir <folder>");
    }

    @Test
    void anUnreadableDurationOrSizeStopsStartUpWithOneLineNamingTheKey() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process process = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
                "-Dliveodds.fixtures.auth.jwks-cache=soon", LiveoddsPush.class.getName())).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(stderr.lines()).hasSize(1);
        assertThat(stderr).startsWith("liveodds-push: cannot start: liveodds.fixtures.auth.jwks-cache: not a duration: 'soon'");
    }

    @Test
    void aPartnerOfTheListMissingASettingStopsStartUpWithOneLineAndItsEnvironmentVariableCounts() throws Exception {
        List<String> partners = List.of("-Dliveodds.partners=a,b",
                "-Dliveodds.partners.a.id=101", "-Dliveodds.partners.a.base-url=http://127.0.0.1:1/a",
                "-Dliveodds.partners.a.auth-url=http://127.0.0.1:1/auth-a", "-Dliveodds.partners.a.client-id=ca",
                "-Dliveodds.partners.a.client-secret=sa",
                "-Dliveodds.partners.b.id=202", "-Dliveodds.partners.b.base-url=http://127.0.0.1:1/b",
                "-Dliveodds.partners.b.auth-url=http://127.0.0.1:1/auth-b", "-Dliveodds.partners.b.client-id=cb");
        assertThat(oneLineFailure(partners, java.util.Map.of())).isEqualTo("liveodds-push: cannot start: missing required setting "
                + "liveodds.partners.b.client-secret (set -Dliveodds.partners.b.client-secret=... or environment variable "
                + "LIVEODDS_PARTNERS_B_CLIENT_SECRET)");

        // given as an environment variable, b's secret is taken: start-up goes on to the next missing setting
        List<String> httpSource = new java.util.ArrayList<>(partners);
        httpSource.add("-Dliveodds.source=http");
        assertThat(oneLineFailure(httpSource, java.util.Map.of("LIVEODDS_PARTNERS_B_CLIENT_SECRET", "sb")))
                .isEqualTo("liveodds-push: cannot start: missing required setting liveodds.source.http.tokens "
                        + "(set -Dliveodds.source.http.tokens=... or environment variable LIVEODDS_SOURCE_HTTP_TOKENS)");

        List<String> singleToo = new java.util.ArrayList<>(partners);
        singleToo.add("-Dliveodds.partner.client-secret=s3cr3t-single");
        assertThat(oneLineFailure(singleToo, java.util.Map.of("LIVEODDS_PARTNERS_B_CLIENT_SECRET", "sb")))
                .startsWith("liveodds-push: cannot start: liveodds.partner.client-secret is not used when liveodds.partners is set")
                .doesNotContain("s3cr3t-single");
    }

    @Test
    void twoPartnersSetToOneBookingFileStopStartUpWithOneLineNamingBoth(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path booking = java.nio.file.Files.writeString(dir.resolve("booking.txt"), "match:1\n");
        // b names it otherwise: through a symbolic link, by a path with a dot-dot in it
        java.nio.file.Files.createDirectories(dir.resolve("b"));
        java.nio.file.Files.createSymbolicLink(dir.resolve("b/booking-b.txt"), booking);
        List<String> partners = List.of("-Dliveodds.partners=a,b",
                "-Dliveodds.partners.a.id=101", "-Dliveodds.partners.a.base-url=http://127.0.0.1:1/a",
                "-Dliveodds.partners.a.auth-url=http://127.0.0.1:1/auth-a", "-Dliveodds.partners.a.client-id=ca",
                "-Dliveodds.partners.a.client-secret=sa", "-Dliveodds.partners.a.booking=" + booking,
                "-Dliveodds.partners.b.id=202", "-Dliveodds.partners.b.base-url=http://127.0.0.1:1/b",
                "-Dliveodds.partners.b.auth-url=http://127.0.0.1:1/auth-b", "-Dliveodds.partners.b.client-id=cb",
                "-Dliveodds.partners.b.client-secret=sb", "-Dliveodds.partners.b.booking=" + dir.resolve("b/../b/booking-b.txt"));
        assertThat(oneLineFailure(partners, java.util.Map.of())).isEqualTo("liveodds-push: cannot start: "
                + "liveodds.partners.b.booking: booking file " + booking.toRealPath() + " is partner a's too "
                + "(liveodds.partners.a.booking): give each partner a booking file of its own");
    }

    /**
     * A count given empty, or through a placeholder that resolves out of its range (read only once Camel resolves it):
     * the same one line naming the key, no stack trace.
     */
    @Test
    void aCountGivenEmptyOrThroughAPlaceholderOutOfRangeStopsStartUpWithOneLineNamingTheKey() throws Exception {
        assertThat(oneLineFailure(List.of("-Dliveodds.source.file.max-per-poll="), java.util.Map.of()))
                .isEqualTo("liveodds-push: cannot start: liveodds.source.file.max-per-poll: not a whole number from 100 to "
                        + "10000: ''");
        assertThat(oneLineFailure(List.of("-Dbatch.of.ours=0", "-Dliveodds.source.file.max-per-poll={{batch.of.ours}}"),
                java.util.Map.of())).isEqualTo("liveodds-push: cannot start: liveodds.source.file.max-per-poll: not a whole "
                        + "number from 100 to 10000: '0'");
    }

    /** Starts the service with these -D settings and environment: it exits 2 with one line on stderr, returned. */
    private static String oneLineFailure(List<String> settings, java.util.Map<String, String> environment) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        command.addAll(settings);
        command.add(LiveoddsPush.class.getName());
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly(); // no service left running after the test
            throw new AssertionError("the service did not refuse to start within 60 s");
        }
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.exitValue()).as(stderr).isEqualTo(2);
        assertThat(stderr.lines()).hasSize(1);
        return stderr;
    }
}
