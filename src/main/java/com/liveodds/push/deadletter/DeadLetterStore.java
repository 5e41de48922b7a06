package com.liveodds.push.deadletter;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.DeliveryState;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.ingest.UpstreamJson;
import com.liveodds.push.settings.Timestamps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A folder of JSON files, one per message that could not be delivered: the upstream body (as JSON, or as a string
 * when it was not JSON), why, and what is known of match, type, attempts and the partner's last answer. Files are
 * written to a temporary name, forced to disk and then renamed, so a file that exists is whole and durable.
 * File names sort in the order the messages came in, which is the order replay uses.
 */
public class DeadLetterStore {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterStore.class);
    private static final DateTimeFormatter NAME_TIME = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);

    private final Path dir;
    private final ObjectMapper mapper = UpstreamJson.mapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final AtomicLong counter = new AtomicLong();

    public DeadLetterStore(String dir) {
        this.dir = Path.of(dir);
    }

    /** An upstream message that broke the envelope rules. */
    public Path rejected(String upstreamBody, String reason) {
        ObjectNode entry = mapper.createObjectNode();
        entry.put("kind", "rejected");
        entry.put("reason", reason);
        JsonNode body = parseOrNull(upstreamBody);
        if (body != null && body.isObject()) {
            copyText(body, "message_id", entry, "message_id");
            copyText(body, "message_type", entry, "message_type");
            copyText(body.path("fight_metadata"), "fight_id", entry, "fight_id");
        }
        entry.putNull("match_id");
        entry.put("attempts", 0);
        Instant now = Instant.now();
        entry.put("received_at", Timestamps.format(now));
        return write(entry, upstreamBody, body, now, textOr(entry, "message_id"));
    }

    /** A push the partner did not take: not retryable, or out of retry budget. */
    public Path undeliverable(DeliveryState state) {
        Push push = state.getPush();
        ObjectNode entry = mapper.createObjectNode();
        entry.put("kind", "undeliverable");
        entry.put("reason", state.getDeadLetterReason());
        entry.put("message_id", push.messageId());
        entry.put("message_type", push.messageType());
        entry.put("match_id", push.matchId());
        entry.put("attempts", state.getAttempts());
        if (state.getLastStatus() > 0) {
            entry.put("last_status", state.getLastStatus());
            entry.put("last_response_body", state.getLastResponseBody());
        } else {
            entry.putNull("last_status");
        }
        if (state.getLastError() != null) {
            entry.put("last_error", state.getLastError());
        }
        entry.put("received_at", Timestamps.format(push.receivedAt()));
        entry.put("first_attempt_at", Timestamps.format(state.getFirstAttemptAt()));
        return write(entry, push.upstreamBody(), parseOrNull(push.upstreamBody()), push.receivedAt(), push.messageId());
    }

    /** The dead letters in the order their messages came in. */
    public List<DeadLetter> list() throws IOException {
        List<DeadLetter> letters = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return letters;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.json")) {
            for (Path file : files) {
                if (file.getFileName().toString().startsWith(".")) {
                    continue;
                }
                try {
                    JsonNode entry = mapper.readTree(file.toFile());
                    JsonNode body = entry.get("body");
                    String upstream = body == null || body.isNull() ? null
                            : body.isTextual() ? body.asText() : mapper.writeValueAsString(body);
                    letters.add(new DeadLetter(file, entry.path("message_id").asText(null), entry.path("match_id").asText(null),
                            entry.path("fight_id").asText(null), entry.path("kind").asText(), upstream));
                } catch (IOException e) {
                    LOG.warn("Dead letter {} is unreadable and was skipped: {}", file, e.getMessage());
                }
            }
        }
        letters.sort(Comparator.comparing(l -> l.file().getFileName().toString()));
        return letters;
    }

    public void remove(DeadLetter letter) throws IOException {
        Files.deleteIfExists(letter.file());
    }

    private Path write(ObjectNode entry, String upstreamBody, JsonNode parsedBody, Instant receivedAt, String messageId) {
        Instant now = Instant.now();
        entry.put("dead_lettered_at", Timestamps.format(now));
        if (parsedBody != null) {
            entry.set("body", parsedBody);
        } else {
            entry.put("body", upstreamBody);
        }
        String name = NAME_TIME.format(receivedAt) + "-" + String.format("%08d", counter.incrementAndGet()) + "-"
                + sanitize(messageId) + ".json";
        try {
            Files.createDirectories(dir);
            Path tmp = dir.resolve("." + name + ".tmp");
            byte[] bytes = mapper.writeValueAsBytes(entry);
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(java.nio.ByteBuffer.wrap(bytes));
                channel.force(true);
            }
            Path target = dir.resolve(name);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            LOG.warn("Dead letter {}: {}", target.getFileName(), entry.path("reason").asText());
            return target;
        } catch (IOException e) {
            // the caller must not acknowledge the source message: it stays upstream and comes again
            throw new IllegalStateException("cannot write dead letter to " + dir + ": " + e.getMessage(), e);
        }
    }

    private JsonNode parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        try {
            return mapper.readTree(text);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static void copyText(JsonNode from, String field, ObjectNode to, String as) {
        JsonNode v = from.get(field);
        if (v != null && v.isValueNode() && !v.isNull()) {
            to.put(as, v.asText());
        }
    }

    private static String textOr(ObjectNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static String sanitize(String id) {
        if (id == null || id.isBlank()) {
            return "unknown";
        }
        String safe = id.replaceAll("[^A-Za-z0-9._-]", "_");
        return safe.length() > 64 ? safe.substring(0, 64) : safe;
    }

    /** One stored dead letter, as replay needs it. */
    public record DeadLetter(Path file, String messageId, String matchId, String fightId, String kind, String upstreamBody) {
    }
}
