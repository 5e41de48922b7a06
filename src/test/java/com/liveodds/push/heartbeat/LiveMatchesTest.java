package com.liveodds.push.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class LiveMatchesTest {

    private final LiveMatches matches = new LiveMatches(Duration.ofMillis(200), Duration.ofMinutes(30));

    @Test
    void aMatchIsLiveOnlyOnceAMessageWasDelivered() {
        matches.enqueued("match:1");
        matches.finished("match:1", false);
        assertThat(matches.isLive("match:1")).isFalse();
        matches.enqueued("match:1");
        matches.finished("match:1", true);
        assertThat(matches.isLive("match:1")).isTrue();
    }

    @Test
    void anIdleLiveMatchIsDueOnceAnIntervalAfterItsLastPushAndNotWhileAHeartbeatIsOut() {
        matches.enqueued("match:1");
        matches.finished("match:1", true);
        assertThat(matches.claimDueHeartbeats()).isEmpty();
        await().atMost(Duration.ofSeconds(2)).until(() -> matches.claimDueHeartbeats().contains("match:1"));
        assertThat(matches.claimDueHeartbeats()).as("claimed already").isEmpty();
        matches.heartbeatFinished("match:1");
        assertThat(matches.claimDueHeartbeats()).as("the heartbeat counts as the last push").isEmpty();
    }

    @Test
    void aMatchWithAMessageWaitingGetsNoHeartbeat() {
        matches.enqueued("match:1");
        matches.finished("match:1", true);
        matches.enqueued("match:1");
        await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2)).until(() -> matches.claimDueHeartbeats().isEmpty());
        matches.finished("match:1", true);
        await().atMost(Duration.ofSeconds(2)).until(() -> matches.claimDueHeartbeats().contains("match:1"));
    }

    @Test
    void backlogAndRetryingFollowTheMessagesOfEveryMatch() {
        matches.enqueued("match:1");
        matches.enqueued("match:1");
        matches.enqueued("match:2");
        assertThat(matches.backlog()).isEqualTo(3);
        matches.attempted("match:1", 2, 503, null, true);
        assertThat(matches.retryingCount()).isEqualTo(1);
        assertThat(matches.matches()).filteredOn(m -> m.matchId().equals("match:1")).singleElement()
                .satisfies(m -> {
                    assertThat(m.backlog()).isEqualTo(2);
                    assertThat(m.inRetry()).isTrue();
                    assertThat(m.lastStatus()).isEqualTo(503);
                    assertThat(m.nextHeartbeatIn()).as("a busy match gets no heartbeat").isNull();
                });
        matches.finished("match:1", true);
        matches.finished("match:1", true);
        matches.finished("match:2", false);
        assertThat(matches.backlog()).isZero();
        assertThat(matches.retryingCount()).isZero();
        assertThat(matches.liveCount()).isEqualTo(1);
        matches.forget("match:1");
        assertThat(matches.liveCount()).isZero();
    }

    @Test
    void anAdoptedMatchIsDueAtOnceAndStaysLiveFromItsLastUpstreamMessageNotFromTheTakeOver() {
        matches.adopt("match:7", java.time.Instant.now());
        assertThat(matches.isLive("match:7")).isTrue();
        assertThat(matches.claimDueHeartbeats()).contains("match:7");

        matches.adopt("match:8", java.time.Instant.now().minus(Duration.ofMinutes(31)));
        matches.claimDueHeartbeats();
        assertThat(matches.isLive("match:8")).as("its live period ended before the take-over").isFalse();
    }

    @Test
    void matchesUpstreamForgotAreDropped() {
        LiveMatches shortLived = new LiveMatches(Duration.ofMillis(100), Duration.ofMillis(300));
        shortLived.enqueued("match:1");
        shortLived.finished("match:1", true);
        await().atMost(Duration.ofSeconds(2)).until(() -> {
            shortLived.claimDueHeartbeats().forEach(shortLived::heartbeatFinished);
            return !shortLived.isLive("match:1");
        });
    }
}
