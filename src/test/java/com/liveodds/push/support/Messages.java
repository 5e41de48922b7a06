package com.liveodds.push.support;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Upstream messages as the odds engine sends them (contract section 3). */
public final class Messages {

    private Messages() {
    }

    public static String odds(String messageId, String fightMetadata) {
        return "{\"message_id\":\"" + messageId + "\",\"message_type\":\"odds\",\"odds_type\":\"delta\",\"timestamp\":\""
                + Instant.now() + "\",\"fight_metadata\":" + fightMetadata
                + ",\"markets\":[{\"id\":\"1\",\"status\":1,\"outcomes\":[{\"id\":\"1\",\"odds\":1.850,\"active\":true}]}]}";
    }

    public static String message(String type, String messageId, String fightMetadata) {
        return "{\"message_id\":\"" + messageId + "\",\"message_type\":\"" + type + "\",\"timestamp\":\"" + Instant.now()
                + "\",\"fight_metadata\":" + fightMetadata + ",\"markets\":[{\"id\":\"1\",\"result\":\"win\"}]}";
    }

    public static String alive() {
        return "{\"message_id\":\"" + UUID.randomUUID() + "\",\"message_type\":\"alive\",\"timestamp\":\"" + Instant.now() + "\"}";
    }

    /** fight_metadata with an external id. */
    public static String external(String fightId, long matchId) {
        return "{\"fight_id\":\"" + fightId + "\",\"fight_id_sr\":\"match:" + matchId + "\",\"card_id\":\"4412\",\"correction\":0}";
    }

    /** External match ids whose lane (of the default 8) is not the lane of {@code match}, so none queues behind it. */
    public static List<Long> matchesOnOtherLanesThan(long match, int count) {
        int lanes = 8;
        int taken = Math.floorMod(("match:" + match).hashCode(), lanes);
        List<Long> found = new ArrayList<>();
        for (long candidate = match + 1; found.size() < count; candidate++) {
            if (Math.floorMod(("match:" + candidate).hashCode(), lanes) != taken) {
                found.add(candidate);
            }
        }
        return found;
    }
}
