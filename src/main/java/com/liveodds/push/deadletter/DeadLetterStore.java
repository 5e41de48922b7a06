package com.liveodds.push.deadletter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.delivery.PushOutcome;
import com.liveodds.push.ingest.EnvelopeValidator;
import com.liveodds.push.ingest.RejectedMessageException;
import com.liveodds.push.ingest.UpstreamJson;
import com.liveodds.push.ops.LogSafe;
import com.liveodds.push.ops.MessageLogContext;
import com.liveodds.push.ops.SecretMask;
import com.liveodds.push.settings.Timestamps;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A folder of JSON files, one per message that could not be delivered: the upstream body, why, and what is known of
 * match, type, attempts and the partner's last answer. The body is kept as it came: as JSON when it is one JSON
 * object or value, as a string when it is UTF-8 text but no JSON, else base64 ({@code "body_encoding": "base64"}).
 * Every secret the {@link SecretMask} knows is masked in the whole record, the partner's echoed answer included.
 * Files are written to a temporary name, forced to disk and then renamed, so a file that exists is whole and
 * durable. File names sort in the order the messages came in, which is the order replay uses.
 */
public class DeadLetterStore {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterStore.class);
    private static final DateTimeFormatter NAME_TIME = DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);
    /** Suffix of an inbox file kept whole next to its record (not *.json, so it is never read as a dead letter). */
    static final String KEPT_SUFFIX = ".kept";
    /** Dead letters listed at once by default. */
    static final int PAGE = 100;

    private final Path dir;
    private final ObjectMapper mapper = UpstreamJson.mapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final AtomicLong counter = new AtomicLong();
    // records in the store by partner, for the bound, the metric and the status page: listed once (names only), then
    // kept up to date by write and remove (and set again whenever the store is listed anyway), so a scrape never lists
    // a big folder
    private final DeadLetterBudget budget;
    private volatile boolean counted;
    private SecretMask secretMask = new SecretMask();

    /** A store without a bound per partner. */
    public DeadLetterStore(String dir) {
        this(dir, new DeadLetterBudget(Long.MAX_VALUE));
    }

    public DeadLetterStore(String dir, DeadLetterBudget budget) {
        this.dir = Path.of(dir);
        this.budget = budget;
    }

    /** Records in the store. */
    public long count() {
        return budget().total();
    }

    /** Records of the partner ({@code ""}: of none, or the single partner's). */
    public long count(String partner) {
        return budget().count(partner);
    }

    /** The count of each partner's letters and their bound, counted from the folder at first use. */
    public DeadLetterBudget budget() {
        if (!counted) {
            synchronized (budget) {
                if (!counted) {
                    recount(names());
                }
            }
        }
        return budget;
    }

    private void recount(List<String> names) {
        budget.counted(names.stream().collect(Collectors.groupingBy(DeadLetterStore::partnerOf, Collectors.counting())));
        counted = true;
    }

    /**
     * At most {@code limit} dead letters ({@value #PAGE} when null) after the one named {@code after} (null: from the
     * first), oldest first, each with its {@code id} to page on; only the files of the page are read.
     */
    public List<DeadLetter> page(String after, Integer limit) {
        int most = limit == null ? PAGE : limit;
        List<DeadLetter> page = new ArrayList<>();
        for (String name : names()) {
            if (page.size() >= most) {
                break;
            }
            if (after == null || name.compareTo(after) > 0) {
                DeadLetter letter = read(dir.resolve(name));
                if (letter != null) {
                    page.add(letter);
                }
            }
        }
        return page;
    }

    /** The newest {@code limit} dead letters, newest first; only those files are read. */
    public List<Summary> newest(int limit) {
        List<String> names = names();
        recount(names);
        List<Summary> newest = new ArrayList<>();
        for (int i = names.size() - 1; i >= 0 && newest.size() < limit; i--) {
            Path file = dir.resolve(names.get(i));
            try {
                JsonNode entry = mapper.readTree(file.toFile());
                newest.add(new Summary(names.get(i), entry.path("message_id").asText(null), entry.path("match_id").asText(null),
                        entry.path("message_type").asText(null), entry.path("reason").asText(null),
                        entry.path("dead_lettered_at").asText(null), entry.path("partner").asText(null)));
            } catch (IOException e) {
                // removed meanwhile (a replay) or unreadable: not shown
            }
        }
        return newest;
    }

    public void setSecretMask(SecretMask secretMask) {
        this.secretMask = secretMask;
    }

    /** An upstream message that broke the rules: its original bytes and the reason. */
    public Path rejected(byte[] original, RejectedMessageException rejection) {
        return rejected(original, rejection, null);
    }

    /** The same for a message read from the inbox file {@code fileName} (null for other sources), which it names. */
    public Path rejected(byte[] original, RejectedMessageException rejection, String fileName) {
        ObjectNode entry = rejectedEntry(rejection.getReason(), rejection.getMessage());
        if (fileName != null) {
            entry.put("file_name", fileName);
        }
        JsonNode body = putBody(entry, original);
        if (body != null && body.isObject()) {
            copyText(body, "message_id", entry, "message_id");
            copyText(body, "message_type", entry, "message_type");
            copyText(body.path("fight_metadata"), "fight_id", entry, "fight_id");
        }
        entry.putNull("match_id");
        entry.put("attempts", 0);
        Instant now = Instant.now();
        entry.put("received_at", Timestamps.format(now));
        return counted(write(entry, now, textOr(entry, "message_id"), ""));
    }

    /**
     * A rejected message that several partners' sources read (its identity {@code key}: file, Kafka record, JMS
     * message): dead-lettered by whichever reader judges it first, and never again, after a restart too (a hidden
     * marker named by the key's hash stays in the store). Without a key, as {@link #rejected(byte[], RejectedMessageException, String)}.
     *
     * @return whether this call wrote the dead letter
     */
    public boolean rejectedOnce(byte[] original, RejectedMessageException rejection, String key, String fileName) {
        if (key == null) {
            rejected(original, rejection, fileName);
            return true;
        }
        Path marker = dir.resolve(".rejected-" + HexFormat.of().formatHex(sha256(key)));
        try {
            Files.createDirectories(dir);
            Files.createFile(marker);
        } catch (java.nio.file.FileAlreadyExistsException seen) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot mark the rejection in " + dir, e);
        }
        try {
            rejected(original, rejection, fileName);
            return true;
        } catch (RuntimeException e) {
            // not kept: the next reader of the message dead-letters it
            try {
                Files.deleteIfExists(marker);
            } catch (IOException ignored) {
                // the message stays with its source anyway
            }
            throw e;
        }
    }

    private static byte[] sha256(String key) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An inbox entry refused before it was read (a symbolic link, a FIFO, a file over the size limit): a record of its
     * name, size and reason, without its content. {@code kept} is the entry itself, moved whole into this folder next
     * to the record, or null when it was not kept.
     */
    public Path inboxEntry(String fileName, long size, RejectedMessageException.Reason reason, String why, Path kept) {
        ObjectNode entry = rejectedEntry(reason, why);
        entry.put("file_name", fileName);
        entry.put("size", size);
        if (kept != null) {
            entry.put("kept_as", kept.getFileName().toString());
        }
        entry.putNull("match_id");
        entry.put("attempts", 0);
        Instant now = Instant.now();
        entry.put("received_at", Timestamps.format(now));
        return counted(write(entry, now, fileName, ""));
    }

    /** Moves an inbox file whole into this folder (never read into memory) and returns where it now is. */
    public Path keep(Path file) throws IOException {
        Files.createDirectories(dir);
        Path target = dir.resolve(NAME_TIME.format(Instant.now()) + "-" + String.format("%08d", counter.incrementAndGet()) + "-"
                + sanitize(file.getFileName().toString()) + KEPT_SUFFIX);
        try {
            return Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (java.nio.file.AtomicMoveNotSupportedException otherFileSystem) {
            return Files.move(file, target);
        }
    }

    /** A push the partner did not take: not retryable, or out of retry budget. */
    public Path undeliverable(PushOutcome outcome) {
        return undeliverable(outcome, "");
    }

    /**
     * A push partner {@code partner} of {@code liveodds.partners} did not take (empty: the single partner). Refused
     * with {@link DeadLettersFull} when the partner has as many dead letters as {@link DeadLetterBudget} allows: the
     * push then fails, and its source keeps it.
     */
    public Path undeliverable(PushOutcome outcome, String partner) {
        String owner = partner == null ? "" : partner;
        if (!budget().take(owner)) {
            throw new DeadLettersFull(owner, budget.limit());
        }
        try {
            return write(undeliverableEntry(outcome, owner), outcome.push().receivedAt(), outcome.push().messageId(), owner);
        } catch (RuntimeException e) {
            budget.givenBack(owner);
            throw e;
        }
    }

    private ObjectNode undeliverableEntry(PushOutcome outcome, String partner) {
        Push push = outcome.push();
        ObjectNode entry = mapper.createObjectNode();
        entry.put("kind", "undeliverable");
        if (!partner.isEmpty()) {
            entry.put("partner", partner);
        }
        entry.put("reason", outcome.deadLetterReason());
        entry.put("message_id", push.messageId());
        entry.put("message_type", push.messageType());
        entry.put("match_id", push.matchId());
        entry.put("attempts", outcome.attempts());
        if (outcome.lastStatus() > 0) {
            entry.put("last_status", outcome.lastStatus());
            entry.put("last_response_body", outcome.lastResponseBody());
        } else {
            entry.putNull("last_status");
        }
        if (outcome.lastError() != null) {
            entry.put("last_error", outcome.lastError());
        }
        entry.put("received_at", Timestamps.format(push.receivedAt()));
        entry.put("first_attempt_at", Timestamps.format(outcome.firstAttemptAt()));
        putBody(entry, push.upstreamBody() == null ? null : push.upstreamBody().getBytes(StandardCharsets.UTF_8));
        return entry;
    }

    /** The dead letters in the order their messages came in. */
    public List<DeadLetter> list() throws IOException {
        List<DeadLetter> letters = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return letters;
        }
        List<String> names = names();
        for (String name : names) {
            DeadLetter letter = read(dir.resolve(name));
            if (letter != null) {
                letters.add(letter);
            }
        }
        recount(names);
        return letters;
    }

    /** One record as replay and the listing read it; null when it is gone or unreadable (logged). */
    private DeadLetter read(Path file) {
        try {
            JsonNode entry = mapper.readTree(file.toFile());
            JsonNode body = entry.get("body");
            // a body that was not UTF-8 would only be rejected again: it is not replayed
            String upstream = body == null || body.isNull() || entry.has("body_encoding") ? null
                    : body.isTextual() ? body.asText() : mapper.writeValueAsString(body);
            return new DeadLetter(file, entry.path("message_id").asText(null), entry.path("match_id").asText(null),
                    entry.path("fight_id").asText(null), entry.path("kind").asText(), upstream,
                    entry.path("partner").asText(null));
        } catch (java.nio.file.NoSuchFileException gone) {
            return null;
        } catch (IOException e) {
            LOG.warn("Dead letter {} is unreadable and was skipped: {}", LogSafe.escape(file.toString()),
                    LogSafe.escape(e.getMessage()));
            return null;
        }
    }

    public void remove(DeadLetter letter) throws IOException {
        if (Files.deleteIfExists(letter.file())) {
            budget().removed(partnerOf(letter.id()));
        }
    }

    /** A record of no partner's (a rejected message), written: counted, toward no bound. */
    private Path counted(Path written) {
        budget().added("");
        return written;
    }

    /** The partner a record's file name names ({@code <...>@<partner>.json}), {@code ""} for none. */
    static String partnerOf(String name) {
        int at = name.lastIndexOf('@');
        return at < 0 || !name.endsWith(".json") ? "" : name.substring(at + 1, name.length() - ".json".length());
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

    private ObjectNode rejectedEntry(RejectedMessageException.Reason reason, String why) {
        ObjectNode entry = mapper.createObjectNode();
        entry.put("kind", "rejected");
        entry.put("reason", why);
        entry.put("reason_code", reason.label());
        return entry;
    }

    /** Puts the body as JSON, as a string, or as base64, and returns it as JSON when it is JSON. */
    private JsonNode putBody(ObjectNode entry, byte[] original) {
        if (original == null) {
            entry.putNull("body");
            return null;
        }
        String text = utf8OrNull(original);
        if (text == null) {
            entry.put("body_encoding", "base64");
            entry.put("body", Base64.getEncoder().encodeToString(secretMask.mask(original)));
            return null;
        }
        JsonNode json = parseOrNull(text);
        if (json != null) {
            entry.set("body", json);
        } else {
            entry.put("body", text);
        }
        return json;
    }

    /**
     * Writes the record of {@code partner} ({@code ""}: of none, or the single partner's), named so that the partner
     * can be counted from the names alone (the sanitized message id never holds an {@code @}).
     */
    private Path write(ObjectNode unmasked, Instant receivedAt, String messageId, String partner) {
        ObjectNode entry = (ObjectNode) masked(unmasked);
        Instant now = Instant.now();
        entry.put("dead_lettered_at", Timestamps.format(now));
        String name = NAME_TIME.format(receivedAt) + "-" + String.format("%08d", counter.incrementAndGet()) + "-"
                + sanitize(secretMask.mask(messageId)) + (partner.isEmpty() ? "" : "@" + partner) + ".json";
        Path tmp = dir.resolve("." + name + ".tmp");
        try {
            Files.createDirectories(dir);
            byte[] bytes = mapper.writeValueAsBytes(entry);
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(java.nio.ByteBuffer.wrap(bytes));
                channel.force(true);
            }
            Path target = dir.resolve(name);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            try (var log = MessageLogContext.of(textOr(entry, "match_id"), messageId)) {
                LOG.warn("Dead letter {}: {}", target.getFileName(), LogSafe.escape(entry.path("reason").asText()));
            }
            return target;
        } catch (IOException e) {
            // the caller must not acknowledge the source message: it stays upstream and comes again; a part written on
            // a full disk is not left to fill it
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the failure below says why
            }
            throw new IllegalStateException("cannot write dead letter to " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A copy of the record with every secret masked, in keys and values alike. */
    private JsonNode masked(JsonNode node) {
        if (node.isTextual()) {
            String text = node.asText();
            String masked = secretMask.mask(text);
            return masked.equals(text) ? node : mapper.getNodeFactory().textNode(masked);
        }
        if (node.isObject()) {
            ObjectNode copy = mapper.createObjectNode();
            node.fields().forEachRemaining(f -> copy.set(secretMask.mask(f.getKey()), masked(f.getValue())));
            return copy;
        }
        if (node.isArray()) {
            var copy = mapper.createArrayNode();
            node.forEach(item -> copy.add(masked(item)));
            return copy;
        }
        return node;
    }

    private static String utf8OrNull(byte[] bytes) {
        if (bytes.length == 0) {
            return "";
        }
        try {
            return EnvelopeValidator.decodeUtf8(bytes);
        } catch (RejectedMessageException notUtf8) {
            return null;
        }
    }

    /** Strictly: a body with a repeated key or a second value stays a string, so nothing of it is lost. */
    private JsonNode parseOrNull(String text) {
        if (text == null) {
            return null;
        }
        try {
            JsonNode json = mapper.readTree(text);
            return json == null || json.isMissingNode() ? null : json;
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

    /**
     * One stored dead letter, as replay needs it; {@code partner} is the partner of {@code liveodds.partners} that did
     * not take it (null for the single partner's, and for a rejected message, which is every booked partner's).
     */
    public record DeadLetter(Path file, String messageId, String matchId, String fightId, String kind, String upstreamBody,
                             @JsonInclude(JsonInclude.Include.NON_NULL) String partner) {

        /** What replay, the status page and the listing's pages name it by: its file name, unique in the store. */
        @JsonProperty("id")
        public String id() {
            return file.getFileName().toString();
        }
    }

    /** One stored dead letter, as the status page lists it; {@code id} is its file name. */
    public record Summary(String id, String messageId, String matchId, String type, String reason, String at, String partner) {
    }
}
