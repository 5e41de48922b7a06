package com.liveodds.push.ingest;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A validated upstream message. {@code json} is the whole object as received (markets and settlements are the
 * producer's and pass through untouched); {@code fightMetadata} is null only for {@code alive}.
 */
public record UpstreamMessage(String messageId, String messageType, ObjectNode json, ObjectNode fightMetadata, String raw) {

    public boolean isAlive() {
        return "alive".equals(messageType);
    }
}
