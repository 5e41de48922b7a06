package com.liveodds.push.heartbeat;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.settings.Timestamps;

/** Builds the heartbeats due on each tick of the heartbeat timer, while the upstream feed is speaking. */
public class Heartbeats {

    private final LiveMatches liveMatches;
    private final UpstreamLiveness upstream;
    private final ObjectMapper mapper = new ObjectMapper();

    public Heartbeats(LiveMatches liveMatches, UpstreamLiveness upstream) {
        this.liveMatches = liveMatches;
        this.upstream = upstream;
    }

    public List<Push> due() {
        if (!upstream.isSpeaking()) {
            return List.of();
        }
        return liveMatches.claimDueHeartbeats().stream().map(this::heartbeat).toList();
    }

    public void sent(Push heartbeat) {
        liveMatches.heartbeatFinished(heartbeat.matchId());
    }

    Push heartbeat(String matchId) {
        Instant now = Instant.now();
        String messageId = UUID.randomUUID().toString();
        ObjectNode body = mapper.createObjectNode();
        body.put("message_id", messageId);
        body.put("message_type", "heartbeat");
        body.put("timestamp", Timestamps.format(now));
        body.putObject("fight_metadata").put("fight_id_sr", matchId);
        return new Push(messageId, matchId, "heartbeat", body.toString(), null, now, 0);
    }
}
