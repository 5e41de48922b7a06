package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.liveodds.push.delivery.Push;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The push carries the upstream message with its match id written in; the validated message stays as it came. */
class PushAssemblerTest {

    private static final String ODDS = """
            {"message_id":"m-1","message_type":"odds","odds_type":"delta","timestamp":"2026-12-02T10:00:00Z",\
            "fight_metadata":{"fight_id":42,"card_id":"77","sport_id":"mma"},"markets":[{"id":1,"outcomes":[{"id":"home","odds":1.9}]}]}""";

    @Test
    void thePushIsTheMessageWithItsMatchIdAndTheMessageIsLeftAsItCame(@TempDir Path work) throws Exception {
        MatchIdResolver resolver = new MatchIdResolver(new FightMapping(work.resolve("no-mapping.csv").toString()));
        UpstreamMessage message = new EnvelopeValidator().validateRaw(ODDS.getBytes(StandardCharsets.UTF_8));

        Push push = new PushAssembler(resolver).assemble(message);

        JsonNode sent = UpstreamJson.mapper().readTree(push.json());
        assertThat(sent.path("fight_metadata").path("fight_id_sr").asText()).isEqualTo("match:770420");
        assertThat(sent.path("fight_metadata").path("sport_id").asText()).isEqualTo("mma");
        assertThat(sent.path("markets")).isEqualTo(message.json().path("markets"));
        assertThat(push.matchId()).isEqualTo("match:770420");
        assertThat(push.oddsType()).isEqualTo("delta");
        assertThat(message.fightMetadata().has("fight_id_sr")).isFalse();
        assertThat(message.json().path("fight_metadata").has("fight_id_sr")).isFalse();
    }
}
