package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.liveodds.push.source.file.InboxFileComponent;
import org.apache.camel.CamelContext;
import org.apache.camel.component.file.FileEndpoint;
import org.apache.camel.component.jms.JmsEndpoint;
import org.apache.camel.component.timer.TimerEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/**
 * One notation for every duration setting (contract section 2): {@code 50ms}, {@code 5s}, {@code 10m}, {@code 2h},
 * and the bare milliseconds older files wrote. Camel reads them, for the beans' {@code Duration} setters and for the
 * time options of the endpoints the routes feed the settings to.
 */
class SettingNotationTest {

    @Test
    void camelsOwnConverterReadsTheNotationIntoTheBeansDurationSetters() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            context.start();
            assertThat(context.getTypeConverter().mandatoryConvertTo(Duration.class, "500ms")).isEqualTo(Duration.ofMillis(500));
            assertThat(context.getTypeConverter().mandatoryConvertTo(Duration.class, "5s")).isEqualTo(Duration.ofSeconds(5));
            assertThat(context.getTypeConverter().mandatoryConvertTo(Duration.class, "10m")).isEqualTo(Duration.ofMinutes(10));
            assertThat(context.getTypeConverter().mandatoryConvertTo(Duration.class, "2h")).isEqualTo(Duration.ofHours(2));
            assertThat(context.getTypeConverter().mandatoryConvertTo(Duration.class, "2000")).isEqualTo(Duration.ofSeconds(2));
            assertThat(context.getTypeConverter().mandatoryConvertTo(Duration.class, "0")).isZero();
        }
    }

    @Test
    void theFormerlyBareMillisecondOptionsTakeTheNotationAndStillTakeBareNumbers() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            context.start();
            // liveodds.source.file.poll-delay, liveodds.heartbeat.tick and liveodds.demo.period, liveodds.source.jms.recovery-interval
            assertThat(context.getEndpoint("file:target/notation?delay=50ms", FileEndpoint.class).getDelay()).isEqualTo(50);
            assertThat(context.getEndpoint("file:target/notation2?delay=50", FileEndpoint.class).getDelay()).isEqualTo(50);
            // the single partner's inbox reads through the bundle's own file component (its options as Camel's)
            context.addComponent("liveoddsFile", new InboxFileComponent());
            assertThat(context.getEndpoint("liveoddsFile:target/notation3?delay=50ms", FileEndpoint.class).getDelay()).isEqualTo(50);
            assertThat(context.getEndpoint("timer:tick?period=100ms", TimerEndpoint.class).getPeriod()).isEqualTo(100);
            assertThat(context.getEndpoint("timer:tick2?period=100", TimerEndpoint.class).getPeriod()).isEqualTo(100);
            assertThat(context.getEndpoint("timer:demo?period=1s", TimerEndpoint.class).getPeriod()).isEqualTo(1000);
            assertThat(context.getEndpoint("jms:queue:a?recoveryInterval=2s", JmsEndpoint.class).getRecoveryInterval()).isEqualTo(2000);
            assertThat(context.getEndpoint("jms:queue:b?recoveryInterval=2000", JmsEndpoint.class).getRecoveryInterval()).isEqualTo(2000);
        }
    }

    @Test
    void kafkaTakesItsTimesInMillisecondsWorkedOutFromTheNotation() {
        Map<String, String> settings = new HashMap<>();
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.source.kafka.poll-timeout-ms", "500");
        settings.put("liveodds.source.kafka.poll-timeout", "2s");
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.source.kafka.poll-timeout-ms", "2000");
        settings.put("liveodds.source.kafka.poll-timeout", "750");
        assertThat(StartupSettings.derive(settings::get)).containsEntry("liveodds.source.kafka.poll-timeout-ms", "750");
    }

    @Test
    void sizesReachTheBeansInBytes() {
        Map<String, String> settings = new HashMap<>(Map.of("liveodds.source.http.max-body", "2KB"));
        assertThat(StartupSettings.derive(settings::get))
                .containsEntry("liveodds.source.http.max-body-bytes", "2048")
                .containsEntry("liveodds.source.file.max-size-bytes", Long.toString(1024 * 1024))
                .containsEntry("liveodds.source.http.max-receiving-bytes", Long.toString(32L * 1024 * 1024));
    }

    @Test
    void aTypoInAnyDurationStopsStartUpWithOneLineNamingTheKey() {
        for (String key : StartupSettings.DURATION_KEYS) {
            Map<String, String> settings = Map.of(key, "5 parsecs");
            assertThatThrownBy(() -> StartupSettings.derive(settings::get))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(key + ": not a duration: '5 parsecs'")
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void aCountOrSwitchThatDoesNotReadStopsStartUpWithOneLineNamingTheKey() {
        StartupSettings.COUNT_KEYS.forEach((key, least) -> {
            Integer most = StartupSettings.COUNT_MOST.get(key);
            String range = most == null ? "of at least " + least : "from " + least + " to " + most;
            List<String> bads = new ArrayList<>(List.of("many", "1.5", Integer.toString(least - 1), "99999999999"));
            if (most != null) {
                bads.add(Integer.toString(most + 1));
            }
            for (String bad : bads) {
                Map<String, String> settings = Map.of(key, bad);
                assertThatThrownBy(() -> StartupSettings.derive(settings::get)).as(key + "=" + bad)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(key + ": not a whole number " + range + ": '" + bad + "'");
            }
        });
        for (String key : StartupSettings.FLAG_KEYS) {
            Map<String, String> settings = Map.of(key, "yes");
            assertThatThrownBy(() -> StartupSettings.derive(settings::get))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(key + ": not true or false: 'yes'");
        }
    }
}
