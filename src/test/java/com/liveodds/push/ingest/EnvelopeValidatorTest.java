package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import com.liveodds.push.ingest.RejectedMessageException.Reason;
import org.apache.camel.Exchange;
import org.apache.camel.Predicate;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

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

    @Test
    void theDispatchRoutesPredicateTellsTheKeepAliveFromAPush() throws Exception {
        Predicate alive = validator.aliveCheck();
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            Exchange exchange = new DefaultExchange(context);
            exchange.getMessage().setBody(validator.validate(
                    "{\"message_id\":\"c\",\"message_type\":\"alive\",\"timestamp\":\"2026-11-21T20:15:03.123Z\"}"));
            assertThat(alive.matches(exchange)).isTrue();
            exchange.getMessage().setBody(validator.validate("{\"message_id\":\"a\",\"message_type\":\"odds\",\"odds_type\":\"snapshot\","
                    + "\"timestamp\":\"2026-11-21T20:15:03.123Z\"," + META + "}"));
            assertThat(alive.matches(exchange)).isFalse();
            exchange.getMessage().setBody("{\"message_type\":\"alive\"}");
            assertThat(alive.matches(exchange)).as("only a validated message is judged").isFalse();
        }
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
        "{\"message_id\":42,\"message_type\":\"alive\",\"timestamp\":\"2026-11-21T20:15:03Z\"} | message_id must be a string",
    })
    void rejectsWithAReasonAnOperatorCanAct(String body, String reason) {
        assertThatThrownBy(() -> validator.validate(body)).isInstanceOf(RejectedMessageException.class).hasMessageContaining(reason);
    }

    /** The validator's quick check of the usual form must accept exactly what the ISO 8601 formatter accepts as UTC. */
    @ParameterizedTest
    @ValueSource(strings = {"2026-11-21T20:15:03Z", "2026-11-21T20:15:03.1Z", "2026-11-21T20:15:03.123456789Z",
            "2026-11-21T20:15:03.1234567890Z", "2026-11-21T20:15:03.Z", "2024-02-29T00:00:00Z", "2026-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-11-00T00:00:00Z",
            "2026-11-21T24:00:00Z", "2026-11-21T23:60:00Z", "2026-11-21T23:59:60Z", "2026-11-21t20:15:03z",
            "2026-11-21T20:15Z", "2026-11-21T20:15:03+00:00", "2026-11-21T20:15:03-00:00", "+2026-11-21T20:15:03Z",
            "2026-1-21T20:15:03Z", "0000-01-01T00:00:00Z", "2026-11-21 20:15:03Z", "2026-11-21T20:15:03.12a4Z"})
    void aTimestampIsUtcExactlyWhenTheIso8601FormatterSaysSo(String timestamp) {
        boolean formatter;
        try {
            formatter = OffsetDateTime.parse(timestamp).getOffset().equals(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            formatter = false;
        }
        String body = "{\"message_id\":\"t\",\"message_type\":\"alive\",\"timestamp\":\"" + timestamp + "\"}";
        if (formatter) {
            assertThat(validator.validate(body).messageType()).isEqualTo("alive");
        } else {
            assertThatThrownBy(() -> validator.validate(body)).hasMessageContaining("is not ISO 8601 UTC");
        }
    }

    @Test
    void emptyBodyIsRejected() {
        assertThatThrownBy(() -> validator.validate("  ")).hasMessage("empty message");
    }

    // contract section 11: one UTF-8 JSON object per message, no repeated key, the message_id rule

    private static final String VALID = "{\"message_id\":\"m-1\",\"message_type\":\"odds\",\"odds_type\":\"delta\","
            + "\"timestamp\":\"2026-11-21T20:15:03.123Z\",\"fight_metadata\":{\"fight_id\":\"7\",\"note\":\"Jos\u00e9 \u0141\u00f3d\u017a\"},"
            + "\"markets\":[{\"id\":\"1\",\"outcomes\":[{\"odds\":1.50}]}]}";

    @Test
    void utf8BytesWithOrWithoutAByteOrderMarkAreAccepted() {
        byte[] utf8 = VALID.getBytes(StandardCharsets.UTF_8);
        assertThat(validator.validateRaw(utf8).fightMetadata().path("note").asText()).isEqualTo("Jos\u00e9 \u0141\u00f3d\u017a");
        byte[] withBom = concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, utf8);
        assertThat(validator.validateRaw(withBom).messageId()).isEqualTo("m-1");
        assertThat(validator.validateRaw(utf8).raw()).as("decimals exact").contains("1.50");
    }

    @Test
    void anyOtherEncodingIsRejectedAsNotUtf8InsteadOfBecomingReplacementCharacters() {
        assertRejected(VALID.getBytes(StandardCharsets.ISO_8859_1), Reason.NOT_UTF8, "not UTF-8");
        assertRejected(concat(new byte[] {(byte) 0xFF, (byte) 0xFE}, VALID.getBytes(StandardCharsets.UTF_16LE)), Reason.NOT_UTF8, "byte-order mark");
        assertRejected(VALID.getBytes(StandardCharsets.UTF_16), Reason.NOT_UTF8, "byte-order mark");
        // UTF-16 without a byte-order mark is no valid UTF-8 JSON either (NUL bytes are no JSON)
        assertThat(rejection(VALID.getBytes(StandardCharsets.UTF_16BE)).getReason()).isIn(Reason.NOT_JSON, Reason.NOT_UTF8);
        // overlong encoding of '/', a lone surrogate encoded as UTF-8 (CESU), a truncated sequence
        assertRejected(withPatch(new byte[] {(byte) 0xC0, (byte) 0xAF}), Reason.NOT_UTF8, "not UTF-8");
        assertRejected(withPatch(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}), Reason.NOT_UTF8, "not UTF-8");
        assertRejected(withPatch(new byte[] {(byte) 0xE2, (byte) 0x82}), Reason.NOT_UTF8, "not UTF-8");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"message_id\":\"m-2\"}", "[]", "x", "// comment", "\u0000", ",", "null", " \n {"})
    void nothingButWhitespaceMayFollowTheObject(String after) {
        assertThat(rejection((VALID + after).getBytes(StandardCharsets.UTF_8)).getReason()).isEqualTo(Reason.TRAILING_CONTENT);
    }

    @Test
    void trailingWhitespaceIsFine() {
        assertThat(validator.validateRaw(("\r\n  " + VALID + " \n\t\r\n").getBytes(StandardCharsets.UTF_8)).messageId()).isEqualTo("m-1");
    }

    @Test
    void aSecondObjectOrGarbageAfterTheFirstIsRejectedAsTrailingContent() {
        for (String after : List.of("\n" + VALID, VALID, "garbage", "}", "]", "{", "\"x\"", "1")) {
            assertRejected((VALID + after).getBytes(StandardCharsets.UTF_8), Reason.TRAILING_CONTENT, "content after the JSON object");
        }
    }

    @Test
    void aKeyRepeatedInAnyObjectAtAnyDepthIsRejected() {
        assertRejected(VALID.replace("\"odds_type\":\"delta\",", "\"odds_type\":\"delta\",\"message_type\":\"alive\","),
                Reason.DUPLICATE_KEY, "message_type");
        assertRejected(VALID.replace("{\"fight_id\":\"7\",", "{\"fight_id\":\"7\",\"fight_id\":\"8\","), Reason.DUPLICATE_KEY, "fight_id");
        assertRejected(VALID.replace("{\"odds\":1.50}", "{\"odds\":1.50,\"odds\":9.99}"), Reason.DUPLICATE_KEY, "odds");
        // the same key in two different objects is no repetition
        assertThat(validator.validate(VALID.replace("\"markets\":[", "\"extra\":{\"fight_id\":\"1\"},\"markets\":[")).messageId()).isEqualTo("m-1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"odds-\u4e2d", "odds-\u65e5", "caf\u00e9", "a b", "a\tb", "line\nforged", "cr\rforged", "nel\u0085x",
        "ls\u2028x", "\u202eevil", "nul\u0000", "del\u007f", ""})
    void aMessageIdOutsidePrintableAsciiIsRejected(String id) {
        String body = VALID.replace("\"m-1\"", "\"" + jsonEscape(id) + "\"");
        RejectedMessageException e = assertRejected(body, Reason.BAD_MESSAGE_ID, "printable ASCII");
        assertThat(e.getSafeMessage()).doesNotContain("\n", "\r", "\u0085", "\u2028", "\u202e");
    }

    @Test
    void aMessageIdOf128PrintableAsciiCharactersIsAcceptedAnd129IsNot() {
        String printable = IntStream.rangeClosed(0x21, 0x7E).mapToObj(c -> String.valueOf((char) c)).collect(Collectors.joining());
        String id128 = (printable + printable).substring(0, 128);
        assertThat(validator.validate(VALID.replace("\"m-1\"", "\"" + jsonEscape(id128) + "\"")).messageId()).isEqualTo(id128);
        assertRejected(VALID.replace("\"m-1\"", "\"" + "x".repeat(129) + "\""), Reason.BAD_MESSAGE_ID, "printable ASCII");
        assertRejected(VALID.replace("\"m-1\"", "42"), Reason.BAD_MESSAGE_ID, "string");
    }

    @Test
    void aMessageTypeWithLineBreaksIsQuotedEscapedInTheReason() {
        RejectedMessageException e = assertRejected(VALID.replace("\"odds\",\"odds_type\"", "\"odds\\nINFO forged line\",\"odds_type\""),
                Reason.BAD_FIELD, "unknown message_type");
        assertThat(e.getMessage()).doesNotContain("\n").contains("\\u000A");
    }

    @Test
    void anEscapedLoneSurrogateIsRejectedWhileAPairIsFine() {
        assertRejected(VALID.replace("Jos\u00e9", "Jos\\ud800"), Reason.BAD_FIELD, "surrogate");
        assertRejected(VALID.replace("\"markets\"", "\"\\udc00\":1,\"markets\""), Reason.BAD_FIELD, "surrogate");
        assertThat(validator.validate(VALID.replace("Jos\u00e9", "\\ud83e\\udd4a")).fightMetadata().path("note").asText())
                .startsWith("\ud83e\udd4a");
    }

    @Test
    void everyRejectionHasOneOfTheFixedReasons() {
        assertThat(rejection("".getBytes(StandardCharsets.UTF_8)).getReason()).isEqualTo(Reason.EMPTY);
        assertThat(rejection("{\"message_id\":".getBytes(StandardCharsets.UTF_8)).getReason()).isEqualTo(Reason.NOT_JSON);
        assertThat(rejection("[1]".getBytes(StandardCharsets.UTF_8)).getReason()).isEqualTo(Reason.NOT_OBJECT);
        assertThat(rejection(VALID.replace("\"timestamp\":\"2026-11-21T20:15:03.123Z\",", "").getBytes(StandardCharsets.UTF_8)).getReason())
                .isEqualTo(Reason.MISSING_FIELD);
        assertThat(rejection(VALID.replace("\"delta\"", "\"full\"").getBytes(StandardCharsets.UTF_8)).getReason()).isEqualTo(Reason.BAD_FIELD);
        assertThat(Reason.NOT_REGULAR_FILE.label()).isEqualTo("not_regular_file");
    }

    private RejectedMessageException assertRejected(String body, Reason reason, String mentioning) {
        return assertRejected(body.getBytes(StandardCharsets.UTF_8), reason, mentioning);
    }

    private RejectedMessageException assertRejected(byte[] body, Reason reason, String mentioning) {
        RejectedMessageException e = rejection(body);
        assertThat(e.getReason()).as(e.getMessage()).isEqualTo(reason);
        assertThat(e.getMessage()).contains(mentioning);
        return e;
    }

    private RejectedMessageException rejection(byte[] body) {
        try {
            validator.validateRaw(body);
        } catch (RejectedMessageException e) {
            return e;
        }
        throw new AssertionError("accepted: " + new String(body, StandardCharsets.UTF_8));
    }

    /** VALID with the given bytes in place of the 'Jos\u00e9' note's accented letter. */
    private static byte[] withPatch(byte[] patch) {
        byte[] utf8 = VALID.getBytes(StandardCharsets.UTF_8);
        byte[] e = "\u00e9".getBytes(StandardCharsets.UTF_8);
        int at = indexOf(utf8, e);
        return concat(concat(java.util.Arrays.copyOfRange(utf8, 0, at), patch), java.util.Arrays.copyOfRange(utf8, at + e.length, utf8.length));
    }

    private static int indexOf(byte[] in, byte[] what) {
        for (int i = 0; i <= in.length - what.length; i++) {
            if (java.util.Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
                return i;
            }
        }
        throw new IllegalArgumentException();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static String jsonEscape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7F) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
