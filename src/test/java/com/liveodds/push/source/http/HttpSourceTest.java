package com.liveodds.push.source.http;

import java.time.Duration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The HTTP source's own rules alone: size limit in 1024 units, the in-flight bound, Retry-After seconds. */
class HttpSourceTest {

    private final HttpSource source = new HttpSource();

    @Test
    void sizesAreCountedIn1024Units() {
        source.setMaxBody(1024 * 1024);
        assertThat(source.isOversized(new byte[1024 * 1024])).isFalse();
        assertThat(source.isOversized(new byte[1024 * 1024 + 1])).isTrue();
        source.setMaxBody(2 * 1024);
        assertThat(source.isOversized(new byte[2048])).isFalse();
        assertThat(source.isOversized(new byte[2049])).isTrue();
        assertThat(source.isOversized(null)).isFalse();
    }

    @Test
    void admitsUpToTheBoundAndAgainOnceASlotIsGivenBack() {
        source.setMaxInFlight(2);
        assertThat(source.admit()).isTrue();
        assertThat(source.admit()).isTrue();
        assertThat(source.admit()).isFalse();
        source.release();
        assertThat(source.admit()).isTrue();
        assertThatThrownBy(() -> source.setMaxInFlight(0)).hasMessageContaining("liveodds.source.http.max-in-flight");
    }

    @Test
    void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        source.setRetryAfter(Duration.ofMillis(1500));
        assertThat(source.retryAfterSeconds()).isEqualTo(2);
        source.setRetryAfter(Duration.ZERO);
        assertThat(source.retryAfterSeconds()).isEqualTo(1);
        source.setRetryAfter(Duration.ofSeconds(5));
        assertThat(source.retryAfterSeconds()).isEqualTo(5);
    }

    @Test
    void anAliveReceiptSaysReceived() {
        assertThat(source.receipt("m-\"1\"", null)).isEqualTo("{\"message_id\":\"m-\\\"1\\\"\",\"status\":\"received\"}");
    }
}
