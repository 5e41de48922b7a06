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
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.DeliveryState;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.ingest.UpstreamJson;
import com.liveodds.push.ops.MessageLogContext;
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
    // records in the store, for the metric and the status page: listed once, then kept up to date by write and
    // remove (and set again whenever the store is listed anyway), so a scrape never lists a big folder
    private final AtomicLong count = new AtomicLong(-1);

    public DeadLetterStore(String dir) {
        this.dir = Path.of(dir);
    }

    /** Records in the store. */
    public long count() {
        long known = count.get();
        if (known >= 0) {
            return known;
        }
        synchronized (count) {
            if (count.get() < 0) {
                count.set(names().size());
            }
            return count.get();
        }
    }

    /** The newest {@code limit} dead letters, newest first; only those files are read. */
    public List<Summary> newest(int limit) {
        List<String> names = names();
        count.set(names.size());
        List<Summary> newest = new ArrayList<>();
        for (int i = names.size() - 1; i >= 0 && newest.size() < limit; i--) {
            Path file = dir.resolve(names.get(i));
            try {
                JsonNode entry = mapper.readTree(file.toFile());
                newest.add(new Summary(names.get(i), entry.path("message_id").asText(null), entry.path("match_id").asText(null),
                        entry.path("message_type").asText(null), entry.path("reason").asText(null),
                        entry.path("dead_lettered_at").asText(null)));
            } catch (IOException e) {
                // removed meanwhile (a replay) or unreadable: not shown
            }
        }
        return newest;
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
        count.set(letters.size());
        return letters;
    }

    public void remove(DeadLetter letter) throws IOException {
        if (Files.deleteIfExists(letter.file()) && count.get() > 0) {
            count.decrementAndGet();
        }
    }

    /** File names of the records, oldest first. */
    private List<String> names() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json") && !n.startsWith(".")).sorted().toList();
        } catch (IOException e) {
            LOG.warn("Cannot list the dead-letter store {}: {}", dir, e.getMessage());
            return List.of();
        }
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
            if (count.get() >= 0) {
                count.incrementAndGet();
            }
            try (var log = MessageLogContext.of(textOr(entry, "match_id"), messageId)) {
                LOG.warn("Dead letter {}: {}", target.getFileName(), entry.path("reason").asText());
            }
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

        /** What replay and the status page name it by: its file name, unique in the store. */
        public String id() {
            return file.getFileName().toString();
        }
    }

    /** One stored dead letter, as the status page lists it; {@code id} is its file name. */
    public record Summary(String id, String messageId, String matchId, String type, String reason, String at) {
    }
}
