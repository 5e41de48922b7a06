package com.liveodds.push.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.heartbeat.MatchStatus;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** The status report alone: stuck matches first, and a whole answer when its sources are not registered. */
class StatusReportTest {

    @Test
    void stuckMatchesComeFirst() {
        Instant now = Instant.now();
        MatchStatus idle = new MatchStatus("match:1", 0, false, 0, now.minusSeconds(1), 202, null, Duration.ofSeconds(4));
        MatchStatus idleLonger = new MatchStatus("match:2", 0, false, 0, now.minusSeconds(4), 202, null, Duration.ofSeconds(1));
        MatchStatus busy = new MatchStatus("match:3", 5, false, 1, now, null, null, null);
        MatchStatus retrying = new MatchStatus("match:4", 1, true, 3, now, 503, "HTTP 503", null);
        MatchStatus retryingBigger = new MatchStatus("match:5", 9, true, 7, now, 503, "HTTP 503", null);
        assertThat(List.of(idle, busy, retrying, idleLonger, retryingBigger).stream().sorted(StatusReport.STUCK_FIRST))
                .extracting(MatchStatus::matchId).containsExactly("match:5", "match:4", "match:3", "match:2", "match:1");
    }

    @Test
    void answersWithWhatItHasWhenNothingIsRegistered() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.start();
            StatusReport report = new StatusReport();
            report.setCamelContext(context);
            JsonNode status = new ObjectMapper().readTree(report.report());
            assertThat(status.at("/upstream/state").asText()).isEqualTo("UNKNOWN");
            assertThat(status.at("/source/state").asText()).isEqualTo("UNKNOWN");
            assertThat(status.at("/partner/state").asText()).isEqualTo("UNKNOWN");
            assertThat(status.at("/partner/token_expires_in_s").isNull()).isTrue();
            assertThat(status.path("matches")).isEmpty();
            assertThat(status.at("/dead_letters/count").asInt()).isZero();
            assertThat(status.at("/totals/delivered").asLong()).isZero();
        }
    }
}
