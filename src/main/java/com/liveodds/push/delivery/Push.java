package com.liveodds.push.delivery;

import java.time.Instant;

/**
 * One message on its way to the partner: where it goes ({@code match:<id>}, message type), the exact JSON sent,
 * and the upstream text it came from (kept for dead letters). Heartbeats have no upstream text.
 */
public record Push(String messageId, String matchId, String messageType, String json, String upstreamBody,
                   Instant receivedAt, long sequence) {

    /** The delivery lane of the match: the same lane for every message of a match keeps them in order. */
    public int lane(int lanes) {
        return Math.floorMod(matchId.hashCode(), lanes);
    }

    /** The partner path below {@code base_url}. */
    public String path(String partnerId) {
        return "v1/liveodds/" + partnerId + "/" + matchId + "/" + messageType;
    }

    @Override
    public String toString() {
        return messageType + " " + messageId + " for " + matchId;
    }
}
