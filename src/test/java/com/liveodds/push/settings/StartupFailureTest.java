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
}
