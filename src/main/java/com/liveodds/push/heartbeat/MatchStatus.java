package com.liveodds.push.heartbeat;

import java.time.Duration;
import java.time.Instant;

/**
 * One live match as the status page shows it (contract section 13).
 *
 * @param backlog          messages of the match waiting or in retry
 * @param inRetry          whether its oldest message has failed at least once and waits for another attempt
 * @param attempts         attempts of the message now in delivery (0 when none is)
 * @param lastPushAt       when the last push (any kind) went out, or null
 * @param lastStatus       HTTP status of the last answer, or null when there was none
 * @param lastError        why the last attempt failed, or null
 * @param nextHeartbeatIn  when the next heartbeat is due, or null when none is (busy match, upstream silent)
 */
public record MatchStatus(String matchId, int backlog, boolean inRetry, int attempts, Instant lastPushAt, Integer lastStatus,
                          String lastError, Duration nextHeartbeatIn) {
}
