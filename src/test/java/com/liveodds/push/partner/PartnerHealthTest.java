package com.liveodds.push.partner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The readiness check alone: DOWN only after down-after of failures with no success, UP at the next success. */
class PartnerHealthTest {

    /** Where a readiness check's pauses would be kept: none is paused here. */
    @TempDir
    static Path work;

    private static final Duration DOWN_AFTER = Duration.ofSeconds(1);

    private PartnerHealth health() {
        PartnerHealth health = new PartnerHealth();
        health.setDownAfter(DOWN_AFTER);
        return health;
    }

    @Test
    void downOnlyAfterDownAfterOfFailuresThenUpAtTheNextSuccess() {
        PartnerHealth health = health();
        long started = System.nanoTime();
        health.failed("HTTP 503");
        assertThat(health.isUp()).as("one failure is not an outage").isTrue();

        await().atMost(DOWN_AFTER.multipliedBy(5)).until(() -> !health.isUp());
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(DOWN_AFTER);
        HealthCheck.Result down = call(health);
        assertThat(down.getState()).isEqualTo(HealthCheck.State.DOWN);
        assertThat(down.getMessage()).hasValueSatisfying(m -> assertThat(m).contains("HTTP 503"));

        health.succeeded();
        assertThat(health.isUp()).isTrue();
        assertThat(call(health).getState()).isEqualTo(HealthCheck.State.UP);
    }

    @Test
    void aSuccessWithinDownAfterKeepsItUp() {
        PartnerHealth health = health();
        health.failed("time-out");
        await().during(DOWN_AFTER.dividedBy(4)).atMost(DOWN_AFTER.multipliedBy(4)).until(health::isUp);
        long success = System.nanoTime();
        health.succeeded();
        health.failed("time-out");
        await().atMost(DOWN_AFTER.multipliedBy(5)).until(() -> !health.isUp());
        assertThat(Duration.ofNanos(System.nanoTime() - success)).as("down-after counted from the last success")
                .isGreaterThanOrEqualTo(DOWN_AFTER);
    }

    @Test
    void nothingSentIsNotDown() {
        PartnerHealth health = health();
        await().during(DOWN_AFTER.multipliedBy(2)).atMost(DOWN_AFTER.multipliedBy(4)).until(health::isUp);
        assertThat(health.isUp()).isTrue();
        assertThat(health.partner().lastSuccess()).isNull();
        assertThat(health.partner().lastFailure()).isNull();
    }

    @Test
    void statusReportsWhatTheCheckSaw() {
        PartnerHealth health = health();
        health.answered(new PartnerAnswer(0, null, null, null, "cannot connect: ConnectException", false));
        health.answered(new PartnerAnswer(202, null, null, null, null, false));
        var status = health.partner();
        assertThat(status.up()).isTrue();
        assertThat(status.lastSuccess()).isNotNull();
        assertThat(status.lastFailure()).isNotNull();
        assertThat(status.lastError()).isEqualTo("cannot connect: ConnectException");
        PartnerReadiness check = new PartnerReadiness(Map.of("", health), new PartnerPauses(work.resolve("paused-partners.json")));
        assertThat(check.isLiveness()).isFalse();
        assertThat(check.getId()).isEqualTo("partner");
    }

    /** The readiness check partner of the single partner, as the service has it. */
    private static HealthCheck.Result call(PartnerHealth health) {
        PartnerReadiness check = new PartnerReadiness(Map.of("", health), new PartnerPauses(work.resolve("paused-partners.json")));
        HealthCheckResultBuilder builder = HealthCheckResultBuilder.on(check);
        check.doCall(builder, Map.of());
        return builder.build();
    }
}
