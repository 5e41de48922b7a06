package com.liveodds.push.demo;

import java.time.Duration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.settings.Timestamps;

/**
 * Plays a sample MMA card (a JSON array of upstream messages) as the odds engine would: one message per tick with
 * a fresh {@code message_id} and {@code timestamp}, then only {@code alive} keep-alives, so the fights go idle
 * and the partner sees heartbeats.
 */
public class DemoProducer {

    private Path cardFile;
    private List<ObjectNode> card;
    private long aliveEveryNanos = 3_000_000_000L;
    private final ObjectMapper mapper = new ObjectMapper();
    private int next;
    private long lastAliveNanos;

    public void setCard(String cardFile) {
        this.cardFile = Path.of(cardFile);
    }

    public void setAliveEvery(Duration aliveEvery) {
        this.aliveEveryNanos = aliveEvery.toNanos();
    }

    /** Read on first use: outside the embedded default the card is never needed, and may not exist. */
    private List<ObjectNode> card() throws IOException {
        if (card == null) {
            List<ObjectNode> messages = new ArrayList<>();
            for (JsonNode message : mapper.readTree(Files.readString(cardFile))) {
                messages.add((ObjectNode) message);
            }
            card = messages;
        }
        return card;
    }

    /** The next upstream message as JSON text, or null when nothing is due on this tick. */
    public synchronized String next() throws IOException {
        long now = System.nanoTime();
        ObjectNode message;
        if (next < card().size()) {
            message = card().get(next++).deepCopy();
        } else if (now - lastAliveNanos >= aliveEveryNanos) {
            message = mapper.createObjectNode();
            message.put("message_type", "alive");
        } else {
            return null;
        }
        if ("alive".equals(message.path("message_type").asText())) {
            lastAliveNanos = now;
        }
        ObjectNode stamped = mapper.createObjectNode();
        stamped.put("message_id", UUID.randomUUID().toString());
        stamped.setAll(message);
        stamped.put("timestamp", Timestamps.now());
        return stamped.toString();
    }
}
