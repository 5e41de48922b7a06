package com.liveodds.push.recovery.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.recovery.RecoveryRouting;

/**
 * The records of the control topic, UTF-8 JSON. {@code request}: an accepted recovery, its matches cut into parts by
 * the partition of the upstream topic they are on ({@code "parts": {"3": ["match:1", ...]}}). {@code progress}: how
 * far one part got, from the instance that pushes it. Anything else on the topic is refused by {@link #parse}, whose
 * reasons never quote the record.
 */
final class ControlRecords {

    static final String REQUEST = "request";
    static final String PROGRESS = "progress";
    /** A larger record is not read (a request of every match of 10 h fits many times over). */
    static final int MAX_BYTES = 1024 * 1024;
    private static final Pattern MATCH_ID = Pattern.compile("match:[0-9]{1,30}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    private static final Pattern PART = Pattern.compile("[0-9]{1,6}");
    private static final Set<String> REQUEST_FIELDS = Set.of("kind", "request_id", "partner_id", "matches", "after",
            "messages", "asked_at", "parts");
    private static final Set<String> PROGRESS_FIELDS = Set.of("kind", "request_id", "partner_id", "part", "state",
            "delivered", "refused", "superseded", "ended_at", "error");
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private ControlRecords() {
    }

    /** A control record read. */
    sealed interface Parsed permits Request, Progress {
    }

    /** An accepted request and its parts: partition → its matches. */
    record Request(RecoveryRouting.Request request, Map<Integer, List<String>> parts) implements Parsed {
    }

    record Progress(String partnerId, String requestId, int part, RecoveryRouting.Progress progress) implements Parsed {
    }

    static byte[] request(RecoveryRouting.Request request, Map<Integer, List<String>> parts) {
        ObjectNode record = JSON.createObjectNode();
        record.put("kind", REQUEST);
        record.put("request_id", request.requestId());
        record.put("partner_id", request.partnerId());
        request.matches().forEach(record.putArray("matches")::add);
        record.put("after", request.after() == null ? null : request.after().toString());
        record.put("messages", request.messages());
        record.put("asked_at", request.askedAt().toString());
        ObjectNode byPartition = record.putObject("parts");
        parts.forEach((partition, matches) -> matches.forEach(byPartition.putArray(Integer.toString(partition))::add));
        return bytes(record);
    }

    static byte[] progress(String partnerId, String requestId, int part, RecoveryRouting.Progress progress) {
        ObjectNode record = JSON.createObjectNode();
        record.put("kind", PROGRESS);
        record.put("request_id", requestId);
        record.put("partner_id", partnerId);
        record.put("part", Integer.toString(part));
        record.put("state", progress.state());
        record.put("delivered", progress.delivered());
        record.put("refused", progress.refused());
        record.put("superseded", progress.superseded());
        record.put("ended_at", progress.endedAt() == null ? null : progress.endedAt().toString());
        record.put("error", progress.error());
        return bytes(record);
    }

    /** The record, or IllegalArgumentException saying what is wrong with it. */
    static Parsed parse(byte[] value) {
        if (value == null || value.length == 0 || value.length > MAX_BYTES) {
            throw new IllegalArgumentException("empty, or larger than " + MAX_BYTES + " bytes");
        }
        JsonNode record;
        try {
            record = JSON.readTree(new String(value, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException("not one JSON object");
        }
        if (record == null || !record.isObject()) {
            throw new IllegalArgumentException("not one JSON object");
        }
        String kind = text(record, "kind", null);
        if (REQUEST.equals(kind)) {
            fields(record, REQUEST_FIELDS);
            return request(record);
        }
        if (PROGRESS.equals(kind)) {
            fields(record, PROGRESS_FIELDS);
            return progress(record);
        }
        throw new IllegalArgumentException("kind is neither " + REQUEST + " nor " + PROGRESS);
    }

    private static Request request(JsonNode record) {
        List<String> matches = matches(record.get("matches"), "matches");
        Map<Integer, List<String>> parts = new LinkedHashMap<>();
        JsonNode byPartition = record.get("parts");
        if (byPartition == null || !byPartition.isObject()) {
            throw new IllegalArgumentException("parts is an object");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = byPartition.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> part = it.next();
            if (!PART.matcher(part.getKey()).matches()) {
                throw new IllegalArgumentException("a part is a partition number");
            }
            parts.put(Integer.parseInt(part.getKey()), matches(part.getValue(), "a part"));
        }
        String after = text(record, "after", null);
        RecoveryRouting.Request request = new RecoveryRouting.Request(id(record, "request_id"), id(record, "partner_id"),
                matches, after == null ? null : time(after, "after"), count(record, "messages"),
                time(text(record, "asked_at", "asked_at"), "asked_at"));
        return new Request(request, parts);
    }

    private static Progress progress(JsonNode record) {
        String part = text(record, "part", "part");
        if (!PART.matcher(part).matches()) {
            throw new IllegalArgumentException("part is a partition number");
        }
        String state = text(record, "state", "state");
        if (!RecoveryRouting.Progress.STATES.contains(state)) {
            throw new IllegalArgumentException("state is queued, running, complete or failed");
        }
        String ended = text(record, "ended_at", null);
        String error = text(record, "error", null);
        if (error != null && error.length() > 200) {
            throw new IllegalArgumentException("error is at most 200 characters");
        }
        return new Progress(id(record, "partner_id"), id(record, "request_id"), Integer.parseInt(part),
                new RecoveryRouting.Progress(state, count(record, "delivered"), count(record, "refused"),
                        count(record, "superseded"), ended == null ? null : time(ended, "ended_at"), error));
    }

    private static void fields(JsonNode record, Set<String> known) {
        for (Iterator<String> names = record.fieldNames(); names.hasNext(); ) {
            if (!known.contains(names.next())) {
                throw new IllegalArgumentException("an unknown field");
            }
        }
    }

    private static List<String> matches(JsonNode list, String what) {
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException(what + " is a list of match ids");
        }
        List<String> matches = new ArrayList<>(list.size());
        for (JsonNode match : (ArrayNode) list) {
            if (!match.isTextual() || !MATCH_ID.matcher(match.asText()).matches()) {
                throw new IllegalArgumentException(what + " holds something that is no match id");
            }
            matches.add(match.asText());
        }
        return matches;
    }

    /** The field's text; null when absent or JSON null and {@code required} is null, else it must be a string. */
    private static String text(JsonNode record, String field, String required) {
        JsonNode value = record.get(field);
        if ((value == null || value.isNull()) && required == null) {
            return null;
        }
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException(field + " is a string");
        }
        return value.asText();
    }

    private static String id(JsonNode record, String field) {
        String id = text(record, field, field);
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException(field + " is 1 to 64 characters of A-Z a-z 0-9 . _ : -");
        }
        return id;
    }

    private static int count(JsonNode record, String field) {
        JsonNode value = record.get(field);
        if (value == null || !value.canConvertToInt() || !value.isIntegralNumber() || value.intValue() < 0) {
            throw new IllegalArgumentException(field + " is a count");
        }
        return value.intValue();
    }

    private static Instant time(String text, String field) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " is an ISO-8601 time");
        }
    }

    private static byte[] bytes(ObjectNode record) {
        try {
            return JSON.writeValueAsBytes(record);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }
}
