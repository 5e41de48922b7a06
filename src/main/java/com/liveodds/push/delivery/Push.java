package com.liveodds.push.delivery;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One message on its way to the partner: where it goes ({@code match:<id>}, message type), the exact JSON sent,
 * and the upstream text it came from (kept for dead letters). Heartbeats have no upstream text. {@code oddsType} is the
 * {@code odds_type} of an {@code odds} message, read when it was validated, so nothing parses the JSON again.
 */
public record Push(String messageId, String matchId, String messageType, String json, String upstreamBody,
                   Instant receivedAt, String oddsType) {

    public static final String HEARTBEAT = "heartbeat";

    /** A push that is no {@code odds} message (a heartbeat, a settlement). */
    public Push(String messageId, String matchId, String messageType, String json, String upstreamBody, Instant receivedAt) {
        this(messageId, matchId, messageType, json, upstreamBody, receivedAt, null);
    }

    public boolean isOdds() {
        return "odds".equals(messageType);
    }

    /** An {@code odds} snapshot: it supersedes the odds of its match queued before it (contract 17). */
    public boolean isSnapshot() {
        return isOdds() && "snapshot".equals(oddsType);
    }

    public boolean isHeartbeat() {
        return HEARTBEAT.equals(messageType);
    }

    /** About the bytes it holds in memory: its bodies' characters (no copy made to count them). */
    public long weight() {
        return (long) json.length() + (upstreamBody == null ? 0 : upstreamBody.length());
    }

    /** What goes on the wire: UTF-8 whatever charset the exchange picked up on its way in. */
    public byte[] bytes() {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return messageType + " " + messageId + " for " + matchId;
    }
}
