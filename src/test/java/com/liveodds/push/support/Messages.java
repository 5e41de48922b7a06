package com.liveodds.push.support;

import java.time.Instant;
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
}
