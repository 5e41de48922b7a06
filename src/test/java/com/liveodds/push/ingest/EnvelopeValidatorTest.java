package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EnvelopeValidatorTest {

    private final EnvelopeValidator validator = new EnvelopeValidator();

    private static final String META = "\"fight_metadata\":{\"fight_id\":\"7\"}";

    @Test
    void acceptsEachTypeOfTheContract() {
        assertThat(validator.validate("{\"message_id\":\"a\",\"message_type\":\"odds\",\"odds_type\":\"snapshot\","
                + "\"timestamp\":\"2026-11-21T20:15:03.123Z\"," + META + "}").messageType()).isEqualTo("odds");
        assertThat(validator.validate("{\"message_id\":\"b\",\"message_type\":\"market_settlement\","
                + "\"timestamp\":\"2026-11-21T20:15:03Z\"," + META + "}").fightMetadata().path("fight_id").asText()).isEqualTo("7");
        assertThat(validator.validate("{\"message_id\":\"c\",\"message_type\":\"alive\",\"timestamp\":\"2026-11-21T20:15:03.123Z\"}")
                .isAlive()).isTrue();
        assertThat(validator.validate("{\"message_id\":\"d\",\"message_type\":\"alive\",\"timestamp\":\"2026-11-21T20:15:03+00:00\"}")
                .isAlive()).as("a zero offset is UTC").isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "not json at all                                                                   | not JSON",
        "[1,2]                                                                             | not a JSON object",
        "{\"message_type\":\"odds\"}                                                       | missing field message_id",
        "{\"message_id\":\"a\",\"timestamp\":\"2026-11-21T20:15:03Z\"}                     | missing field message_type",
        "{\"message_id\":\"a\",\"message_type\":\"lineup\",\"timestamp\":\"2026-11-21T20:15:03Z\"} | unknown message_type 'lineup'",
        "{\"message_id\":\"a\",\"message_type\":\"alive\"}                                 | missing field timestamp",
        "{\"message_id\":\"a\",\"message_type\":\"alive\",\"timestamp\":\"yesterday\"}     | is not ISO 8601",
        "{\"message_id\":\"a\",\"message_type\":\"alive\",\"timestamp\":\"2026-11-21T22:15:03.123+02:00\"} | is not ISO 8601 UTC",
        "{\"message_id\":\"a\",\"message_type\":\"odds\",\"timestamp\":\"2026-11-21T20:15:03Z\",\"fight_metadata\":{\"fight_id\":\"7\"}} | missing field odds_type",
        "{\"message_id\":\"a\",\"message_type\":\"odds\",\"odds_type\":\"full\",\"timestamp\":\"2026-11-21T20:15:03Z\"} | unknown odds_type 'full'",
        "{\"message_id\":\"a\",\"message_type\":\"market_settlement\",\"timestamp\":\"2026-11-21T20:15:03Z\"} | missing field fight_metadata",
        "{\"message_id\":\"a\",\"message_type\":\"market_settlement\",\"timestamp\":\"2026-11-21T20:15:03Z\",\"fight_metadata\":{}} | missing field fight_metadata.fight_id",
        "{\"message_id\":42,\"message_type\":\"alive\",\"timestamp\":\"2026-11-21T20:15:03Z\"} | message_id must be a non-empty string",
    })
    void rejectsWithAReasonAnOperatorCanAct(String body, String reason) {
        assertThatThrownBy(() -> validator.validate(body)).isInstanceOf(RejectedMessageException.class).hasMessageContaining(reason);
    }

    @Test
    void emptyBodyIsRejected() {
        assertThatThrownBy(() -> validator.validate("  ")).hasMessage("empty message");
    }
}
