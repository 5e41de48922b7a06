package com.liveodds.push.ingest;

import java.util.Optional;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Resolves the {@code match:<id>} of the push path (contract section 5): the external id
 * {@code fight_metadata.fight_id_sr}, then the fight mapping, then {@code match:{card}{fight, 3+ digits}{correction}}.
 */
public class MatchIdResolver {

    private static final Pattern EXTERNAL = Pattern.compile("match:\\d+");
    private static final Pattern DIGITS = Pattern.compile("\\d+");

    private final FightMapping mapping;

    public MatchIdResolver(FightMapping mapping) {
        this.mapping = mapping;
    }

    public String resolve(JsonNode fightMetadata) {
        String external = text(fightMetadata.get("fight_id_sr"));
        if (external != null && EXTERNAL.matcher(external).matches()) {
            return external;
        }
        String fightId = text(fightMetadata.get("fight_id"));
        if (fightId != null) {
            Optional<String> mapped = mapping.matchFor(fightId);
            if (mapped.isPresent()) {
                return mapped.get();
            }
        }
        return fallback(fightId, text(fightMetadata.get("card_id")), correction(fightMetadata.get("correction")));
    }

    private static String fallback(String fightId, String cardId, String correction) {
        if (cardId == null || !DIGITS.matcher(cardId).matches()) {
            throw new UnresolvableMatchException("no usable fight_id_sr, fight " + fightId
                    + " is not in the mapping, and card_id '" + cardId + "' is not digits");
        }
        if (fightId == null || !DIGITS.matcher(fightId).matches()) {
            throw new UnresolvableMatchException("no usable fight_id_sr, fight " + fightId
                    + " is not in the mapping, and fight_id is not digits");
        }
        if (correction == null || !DIGITS.matcher(correction).matches()) {
            throw new UnresolvableMatchException("no usable fight_id_sr, fight " + fightId
                    + " is not in the mapping, and correction '" + correction + "' is not digits");
        }
        String paddedFight = fightId.length() >= 3 ? fightId : "0".repeat(3 - fightId.length()) + fightId;
        return "match:" + cardId + paddedFight + correction;
    }

    private static String correction(JsonNode node) {
        if (node == null || node.isNull()) {
            return "0";
        }
        return node.isIntegralNumber() ? node.asText() : text(node);
    }

    private static String text(JsonNode node) {
        if (node == null || node.isNull() || node.isContainerNode()) {
            return null;
        }
        String value = node.asText().strip();
        return value.isEmpty() ? null : value;
    }
}
