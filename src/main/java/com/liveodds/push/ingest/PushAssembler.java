package com.liveodds.push.ingest;

import java.time.Instant;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.Push;

/** Turns a validated upstream message into the push the partner receives: resolved match id written into the body. */
public class PushAssembler {

    private final MatchIdResolver resolver;
    private final ObjectMapper mapper = UpstreamJson.mapper();

    public PushAssembler(MatchIdResolver resolver) {
        this.resolver = resolver;
    }

    public Push assemble(UpstreamMessage message) {
        String matchId = resolver.resolve(message.fightMetadata());
        // the validated tree stays as it came; only the object that changes is copied, not the markets around it
        ObjectNode body = message.json().objectNode().setAll(message.json());
        body.set("fight_metadata", message.fightMetadata().deepCopy().put("fight_id_sr", matchId));
        try {
            return new Push(message.messageId(), matchId, message.messageType(), mapper.writeValueAsString(body),
                    message.raw(), Instant.now(), message.json().path("odds_type").asText(null));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }
}
