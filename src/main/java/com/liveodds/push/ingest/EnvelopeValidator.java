package com.liveodds.push.ingest;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Set;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.ingest.RejectedMessageException.Reason;
import com.liveodds.push.ops.LogSafe;
import org.apache.camel.Predicate;

/**
 * Checks one upstream message against the rules of contract sections 3 and 11 and parses it: UTF-8 (a byte-order
 * mark tolerated), exactly one JSON object with no repeated key, then the envelope fields. Each broken rule is a
 * {@link RejectedMessageException} with its {@link Reason}.
 */
public class EnvelopeValidator {

    private static final Set<String> PUSHED_TYPES = Set.of("odds", "market_settlement", "rollback_settlement");
    private static final Set<String> ODDS_TYPES = Set.of("delta", "snapshot", "deactivation");
    private static final int MAX_MESSAGE_ID = 128;
    /** How much of a bad value a reason quotes. */
    private static final int QUOTED = 64;

    private final ObjectMapper mapper = UpstreamJson.mapper();

    /** The message as its source received it: bytes that must be UTF-8. */
    public UpstreamMessage validateRaw(byte[] body) {
        return validate(decodeUtf8(body));
    }

    /** A message a source already holds as text (a JMS TextMessage, a Kafka record read as a string). */
    public UpstreamMessage validate(String body) {
        if (body == null || body.isBlank()) {
            throw new RejectedMessageException(Reason.EMPTY, "empty message");
        }
        JsonNode root = parse(body);
        if (!(root instanceof ObjectNode json)) {
            throw new RejectedMessageException(Reason.NOT_OBJECT, "not a JSON object");
        }
        if (hasLoneSurrogate(json)) {
            // an escaped half of a UTF-16 pair (\ud800) has no UTF-8 form: it would reach the partner as '?'
            throw new RejectedMessageException(Reason.BAD_FIELD, "a key or string holds an unpaired surrogate escape (\\uD800-\\uDFFF)");
        }
        String messageId = messageId(json);
        String messageType = requiredText(json, "message_type");
        if (!PUSHED_TYPES.contains(messageType) && !"alive".equals(messageType)) {
            throw new RejectedMessageException(Reason.BAD_FIELD, "unknown message_type " + quote(messageType)
                    + " (expected odds, market_settlement, rollback_settlement or alive)");
        }
        String timestamp = requiredText(json, "timestamp");
        if (!isUtc(timestamp)) {
            throw new RejectedMessageException(Reason.BAD_FIELD, "timestamp " + quote(timestamp) + " is not ISO 8601 UTC");
        }
        if ("alive".equals(messageType)) {
            return new UpstreamMessage(messageId, messageType, json, null, body);
        }
        if ("odds".equals(messageType)) {
            String oddsType = requiredText(json, "odds_type");
            if (!ODDS_TYPES.contains(oddsType)) {
                throw new RejectedMessageException(Reason.BAD_FIELD, "unknown odds_type " + quote(oddsType)
                        + " (expected delta, snapshot or deactivation)");
            }
        }
        JsonNode metadata = json.get("fight_metadata");
        if (metadata == null || metadata.isNull()) {
            throw new RejectedMessageException(Reason.MISSING_FIELD, "missing field fight_metadata");
        }
        if (!(metadata instanceof ObjectNode fightMetadata)) {
            throw new RejectedMessageException(Reason.BAD_FIELD, "field fight_metadata must be an object");
        }
        JsonNode fightId = fightMetadata.get("fight_id");
        if (fightId == null || fightId.isNull()) {
            throw new RejectedMessageException(Reason.MISSING_FIELD, "missing field fight_metadata.fight_id");
        }
        if (!(fightId.isTextual() || fightId.isIntegralNumber()) || fightId.asText().isBlank()) {
            throw new RejectedMessageException(Reason.BAD_FIELD, "field fight_metadata.fight_id must be a non-empty string or integer");
        }
        return new UpstreamMessage(messageId, messageType, json, fightMetadata, body);
    }

    /**
     * Whether a validated message is upstream's keep-alive, which stops at ingest: the predicate of the dispatch route's
     * choice ({@code ref: liveoddsAliveMessage}). The method language would copy the exchange and wait on the copy for
     * every message.
     */
    public Predicate aliveCheck() {
        return exchange -> exchange.getMessage().getBody() instanceof UpstreamMessage message && message.isAlive();
    }

    /** Strict UTF-8 (a UTF-8 byte-order mark skipped): a byte sequence that is not UTF-8 is refused, never turned into U+FFFD. */
    public static String decodeUtf8(byte[] body) {
        if (body == null || body.length == 0) {
            throw new RejectedMessageException(Reason.EMPTY, "empty message");
        }
        int start = 0;
        if (body.length >= 3 && (body[0] & 0xFF) == 0xEF && (body[1] & 0xFF) == 0xBB && (body[2] & 0xFF) == 0xBF) {
            start = 3;
        } else if (body.length >= 2 && ((body[0] & 0xFF) == 0xFE && (body[1] & 0xFF) == 0xFF
                || (body[0] & 0xFF) == 0xFF && (body[1] & 0xFF) == 0xFE)) {
            throw new RejectedMessageException(Reason.NOT_UTF8, "not UTF-8: the message starts with a UTF-16 or UTF-32 byte-order mark");
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body, start, body.length - start);
        try {
            CharBuffer text = decoder.decode(in);
            return text.toString();
        } catch (CharacterCodingException e) {
            throw new RejectedMessageException(Reason.NOT_UTF8, "not UTF-8: invalid byte sequence at byte " + in.position());
        }
    }

    private JsonNode parse(String body) {
        try {
            return mapper.readTree(body);
        } catch (JsonParseException e) {
            String problem = e.getOriginalMessage();
            if (problem != null && problem.startsWith("Duplicate field")) {
                throw new RejectedMessageException(Reason.DUPLICATE_KEY, "duplicate key: " + problem);
            }
            if (e.getLocation() != null && endOfFirstValue(body) >= 0 && e.getLocation().getCharOffset() >= endOfFirstValue(body)) {
                throw new RejectedMessageException(Reason.TRAILING_CONTENT, "content after the JSON object: " + problem);
            }
            throw new RejectedMessageException(Reason.NOT_JSON, "not JSON: " + problem);
        } catch (MismatchedInputException e) {
            String problem = e.getOriginalMessage();
            if (problem != null && problem.startsWith("Trailing token")) {
                throw new RejectedMessageException(Reason.TRAILING_CONTENT, "content after the JSON object: " + problem);
            }
            throw new RejectedMessageException(Reason.NOT_JSON, "not JSON: " + problem);
        } catch (JsonProcessingException e) {
            throw new RejectedMessageException(Reason.NOT_JSON, "not JSON: " + e.getOriginalMessage());
        }
    }

    private static boolean hasLoneSurrogate(JsonNode node) {
        if (node.isTextual()) {
            return isLoneSurrogate(node.textValue());
        }
        for (var fields = node.fields(); fields.hasNext(); ) {
            var field = fields.next();
            if (isLoneSurrogate(field.getKey()) || hasLoneSurrogate(field.getValue())) {
                return true;
            }
        }
        if (node.isArray()) {
            for (JsonNode item : node) {
                if (hasLoneSurrogate(item)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isLoneSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** Where the first complete JSON value of the text ends, or -1 when it has none (not JSON at all). */
    private int endOfFirstValue(String body) {
        try (var parser = mapper.getFactory().createParser(body)) {
            if (parser.nextToken() == null) {
                return -1;
            }
            parser.skipChildren();
            return (int) parser.currentLocation().getCharOffset();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    /** 1 to 128 printable ASCII characters: the Idempotency-Key header is then exactly the id, byte for byte. */
    private static String messageId(ObjectNode json) {
        JsonNode node = json.get("message_id");
        if (node == null || node.isNull()) {
            throw new RejectedMessageException(Reason.MISSING_FIELD, "missing field message_id");
        }
        if (!node.isTextual()) {
            throw new RejectedMessageException(Reason.BAD_MESSAGE_ID, "message_id must be a string of 1 to 128 printable ASCII characters");
        }
        String id = node.asText();
        boolean printableAscii = !id.isEmpty() && id.length() <= MAX_MESSAGE_ID && id.chars().allMatch(c -> c >= 0x21 && c <= 0x7E);
        if (!printableAscii) {
            throw new RejectedMessageException(Reason.BAD_MESSAGE_ID, "message_id " + quote(id)
                    + " is not 1 to 128 printable ASCII characters (0x21-0x7E)");
        }
        return id;
    }

    private static boolean isUtc(String timestamp) {
        if (isPlainUtc(timestamp)) {
            return true;
        }
        try {
            return OffsetDateTime.parse(timestamp, DateTimeFormatter.ISO_OFFSET_DATE_TIME).getOffset().equals(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    /**
     * The usual form, {@code 2026-11-21T20:15:03Z} or with 1 to 9 digits of fraction, checked without the formatter
     * (which costs more than the rest of the validation): true only for a timestamp the formatter accepts as UTC too;
     * any other form is left to it.
     */
    private static boolean isPlainUtc(String t) {
        int n = t.length();
        if (n < 20 || n > 30 || t.charAt(n - 1) != 'Z' || t.charAt(4) != '-' || t.charAt(7) != '-' || t.charAt(10) != 'T'
                || t.charAt(13) != ':' || t.charAt(16) != ':' || !digits(t, 0, 4) || !digits(t, 5, 7) || !digits(t, 8, 10)
                || !digits(t, 11, 13) || !digits(t, 14, 16) || !digits(t, 17, 19)) {
            return false;
        }
        if (n > 20 && (t.charAt(19) != '.' || n == 21 || !digits(t, 20, n - 1))) {
            return false;
        }
        int month = Integer.parseInt(t, 5, 7, 10);
        int day = Integer.parseInt(t, 8, 10, 10);
        return month >= 1 && month <= 12 && day >= 1 && day <= YearMonth.of(Integer.parseInt(t, 0, 4, 10), month).lengthOfMonth()
                && Integer.parseInt(t, 11, 13, 10) < 24 && Integer.parseInt(t, 14, 16, 10) < 60 && Integer.parseInt(t, 17, 19, 10) < 60;
    }

    private static boolean digits(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static String requiredText(ObjectNode json, String field) {
        JsonNode node = json.get(field);
        if (node == null || node.isNull()) {
            throw new RejectedMessageException(Reason.MISSING_FIELD, "missing field " + field);
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw new RejectedMessageException(Reason.BAD_FIELD, "field " + field + " must be a non-empty string");
        }
        return node.asText();
    }

    /** A bad value quoted in a reason: short, and with no character that could forge a log line. */
    private static String quote(String value) {
        String shown = value.length() > QUOTED ? value.substring(0, QUOTED) + "..." : value;
        return "'" + LogSafe.escape(shown) + "'";
    }
}
