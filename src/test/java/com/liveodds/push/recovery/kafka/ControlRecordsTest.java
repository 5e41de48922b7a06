package com.liveodds.push.recovery.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.liveodds.push.recovery.RecoveryRouting;
import org.junit.jupiter.api.Test;

/**
 * The control topic's records: what one instance writes another reads back as written; anything else is refused with
 * a reason that never quotes the record.
 */
class ControlRecordsTest {

    private static final Instant ASKED = Instant.parse("2026-11-27T10:15:30.123456Z");

    @Test
    void aRequestAndAProgressReadBackAsWritten() {
        RecoveryRouting.Request request = new RecoveryRouting.Request("r-1", "42", List.of("match:1", "match:2", "match:3"),
                ASKED.minusSeconds(60), 7, ASKED);
        Map<Integer, List<String>> parts = Map.of(3, List.of("match:1", "match:3"), 0, List.of("match:2"));
        ControlRecords.Request read = (ControlRecords.Request) ControlRecords.parse(ControlRecords.request(request, parts));
        assertThat(read.request()).isEqualTo(request);
        assertThat(read.parts()).isEqualTo(parts);

        RecoveryRouting.Request oneMatch = new RecoveryRouting.Request("r-2", "42", List.of("match:1"), null, 0, ASKED);
        assertThat(((ControlRecords.Request) ControlRecords.parse(ControlRecords.request(oneMatch, Map.of()))).request())
                .isEqualTo(oneMatch);

        RecoveryRouting.Progress progress = new RecoveryRouting.Progress("failed", 3, 1, 2, ASKED, "the retained messages could not be read");
        ControlRecords.Progress back = (ControlRecords.Progress) ControlRecords.parse(ControlRecords.progress("42", "r-1", 3, progress));
        assertThat(back).isEqualTo(new ControlRecords.Progress("42", "r-1", 3, progress));
    }

    @Test
    void anythingElseIsRefusedWithoutQuotingIt() {
        String valid = new String(ControlRecords.request(new RecoveryRouting.Request("r-1", "42", List.of("match:1"), null, 1,
                ASKED), Map.of(0, List.of("match:1"))), StandardCharsets.UTF_8);
        List<String> bad = List.of(
                "",
                "SECRET",
                "\"SECRET\"",
                "{\"kind\":\"SECRET\"}",
                valid.replace("\"r-1\"", "\"SECRET\\nx\""),
                valid.replace("\"42\"", "\"SECRET/../x\""),
                valid.replace("\"match:1\"]", "\"SECRET\"]"),
                valid.replace("\"messages\":1", "\"messages\":1.5"),
                valid.replace("\"messages\":1", "\"messages\":99999999999"),
                valid.replace("\"asked_at\"", "\"SECRET\":1,\"asked_at\""),
                valid.replace("\"kind\":\"request\"", "\"kind\":\"request\",\"kind\":\"request\""),
                valid.replace("{\"0\"", "{\"SECRET\""),
                valid + "{}",
                "{\"kind\":\"progress\",\"request_id\":\"r\",\"partner_id\":\"42\",\"part\":\"0\",\"state\":\"SECRET\","
                        + "\"delivered\":0,\"refused\":0,\"superseded\":0,\"ended_at\":null,\"error\":null}",
                "{\"kind\":\"progress\",\"request_id\":\"r\",\"partner_id\":\"42\",\"part\":\"0\",\"state\":\"running\","
                        + "\"delivered\":-1,\"refused\":0,\"superseded\":0,\"ended_at\":null,\"error\":null}",
                "{\"kind\":\"progress\",\"request_id\":\"r\",\"partner_id\":\"42\",\"part\":\"0\",\"state\":\"failed\","
                        + "\"delivered\":0,\"refused\":0,\"superseded\":0,\"ended_at\":\"SECRET\",\"error\":null}",
                "[".repeat(5000) + "]".repeat(5000));
        for (String record : bad) {
            assertThatThrownBy(() -> ControlRecords.parse(record.getBytes(StandardCharsets.UTF_8)))
                    .as(record.substring(0, Math.min(60, record.length())))
                    .isInstanceOf(IllegalArgumentException.class)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("SECRET"));
        }
        assertThatThrownBy(() -> ControlRecords.parse(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ControlRecords.parse(new byte[ControlRecords.MAX_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
