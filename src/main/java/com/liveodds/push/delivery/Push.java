package com.liveodds.push.delivery;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One message on its way to the partner: where it goes ({@code match:<id>}, message type), the exact JSON sent,
 * and the upstream text it came from (kept for dead letters). Heartbeats have no upstream text.
 */
public record Push(String messageId, String matchId, String messageType, String json, String upstreamBody,
                   Instant receivedAt) {

    public static final String HEARTBEAT = "heartbeat";

    public boolean isHeartbeat() {
        return HEARTBEAT.equals(messageType);
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
