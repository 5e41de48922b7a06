package com.liveodds.push.ingest;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Checks one upstream message against the envelope of the contract (section 3) and parses it. */
public class EnvelopeValidator {

    private static final Set<String> PUSHED_TYPES = Set.of("odds", "market_settlement", "rollback_settlement");
    private static final Set<String> ODDS_TYPES = Set.of("delta", "snapshot", "deactivation");

    private final ObjectMapper mapper = UpstreamJson.mapper();

    public UpstreamMessage validate(String body) {
        if (body == null || body.isBlank()) {
            throw new RejectedMessageException("empty message");
        }
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (JsonProcessingException e) {
            throw new RejectedMessageException("not JSON: " + e.getOriginalMessage());
        }
        if (!(root instanceof ObjectNode json)) {
            throw new RejectedMessageException("not a JSON object");
        }
        String messageId = requiredText(json, "message_id");
        String messageType = requiredText(json, "message_type");
        if (!PUSHED_TYPES.contains(messageType) && !"alive".equals(messageType)) {
            throw new RejectedMessageException("unknown message_type '" + messageType
                    + "' (expected odds, market_settlement, rollback_settlement or alive)");
        }
        String timestamp = requiredText(json, "timestamp");
        if (!isUtc(timestamp)) {
            throw new RejectedMessageException("timestamp '" + timestamp + "' is not ISO 8601 UTC");
        }
        if ("alive".equals(messageType)) {
            return new UpstreamMessage(messageId, messageType, json, null, body);
        }
        if ("odds".equals(messageType)) {
            String oddsType = requiredText(json, "odds_type");
            if (!ODDS_TYPES.contains(oddsType)) {
                throw new RejectedMessageException("unknown odds_type '" + oddsType + "' (expected delta, snapshot or deactivation)");
            }
        }
        JsonNode metadata = json.get("fight_metadata");
        if (!(metadata instanceof ObjectNode fightMetadata)) {
            throw new RejectedMessageException("missing field fight_metadata");
        }
        JsonNode fightId = fightMetadata.get("fight_id");
        if (fightId == null || fightId.isNull() || !(fightId.isTextual() || fightId.isIntegralNumber()) || fightId.asText().isBlank()) {
            throw new RejectedMessageException("missing field fight_metadata.fight_id");
        }
        return new UpstreamMessage(messageId, messageType, json, fightMetadata, body);
    }

    private static boolean isUtc(String timestamp) {
        try {
            return OffsetDateTime.parse(timestamp, DateTimeFormatter.ISO_OFFSET_DATE_TIME).getOffset().equals(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    private static String requiredText(ObjectNode json, String field) {
        JsonNode node = json.get(field);
        if (node == null || node.isNull()) {
            throw new RejectedMessageException("missing field " + field);
        }
        if (!node.isTextual() || node.asText().isBlank()) {
            throw new RejectedMessageException("field " + field + " must be a non-empty string");
        }
        return node.asText();
    }
}
