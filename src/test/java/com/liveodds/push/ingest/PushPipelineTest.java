package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file source to the partner over real HTTP: paths, headers, bodies, match ids, dead letters. */
class PushPipelineTest {

    @TempDir
    static Path work;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static WireMockPartner partner;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        partner = new WireMockPartner().acceptingEverything();
        Path mapping = work.resolve("mapping.csv");
        Files.writeString(mapping, "# test mapping\nfight_id,match_id\n21,match:5550021\n22,5550022\n");
        service = RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .work(work)
                .set("liveodds.mapping.file", mapping.toString())
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partner.close();
    }

    @Test
    void everyMessageTypeLandsOnItsPathWithTheContractHeadersAndEnrichedBody() throws Exception {
        service.drop("a-001.json", Messages.odds("m-odds-1", Messages.external("1", 41234567)));
        service.drop("a-002.json", Messages.message("market_settlement", "m-settle-1", Messages.external("1", 41234567)));
        service.drop("a-003.json", Messages.message("rollback_settlement", "m-roll-1", Messages.external("1", 41234567)));
        service.drop("a-004.json", Messages.odds("m-utf8", "{\"fight_id\":\"1\",\"fight_id_sr\":\"match:41234567\",\"note\":\"Jos\u00e9 Aldo \u2013 \u0141\u00f3d\u017a\"}"));

        await().atMost(Duration.ofSeconds(30)).until(() -> partner.pushes().stream()
                .filter(r -> r.getHeader("Idempotency-Key").startsWith("m-")).count() >= 4);

        assertPush("m-odds-1", "/partner/v1/liveodds/42/match:41234567/odds");
        assertPush("m-settle-1", "/partner/v1/liveodds/42/match:41234567/market_settlement");
        assertPush("m-roll-1", "/partner/v1/liveodds/42/match:41234567/rollback_settlement");
        LoggedRequest utf8 = partner.pushes().stream().filter(r -> "m-utf8".equals(r.getHeader("Idempotency-Key"))).findFirst().orElseThrow();
        assertThat(new String(utf8.getBody(), java.nio.charset.StandardCharsets.UTF_8)).as("UTF-8 on the wire")
                .contains("Jos\u00e9 Aldo \u2013 \u0141\u00f3d\u017a");
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(service.done().resolve("a-003.json")));
        assertThat(service.inbox().resolve("a-001.json")).doesNotExist();
    }

    @Test
    void allThreeMatchIdPrioritiesOverTheWire() throws Exception {
        // 1: external id; 2: mapping (both spellings of the match id); 3: fallback, fight zero-padded, digit-string correction
        service.drop("b-001.json", Messages.odds("p-ext", "{\"fight_id\":\"20\",\"fight_id_sr\":\"match:777\",\"card_id\":\"9\"}"));
        service.drop("b-002.json", Messages.odds("p-map-1", "{\"fight_id\":\"21\",\"fight_id_sr\":\"sr:match:7\",\"card_id\":\"9\"}"));
        service.drop("b-003.json", Messages.odds("p-map-2", "{\"fight_id\":\"22\",\"fight_id_sr\":null,\"card_id\":\"9\"}"));
        service.drop("b-004.json", Messages.odds("p-fallback", "{\"fight_id\":\"7\",\"card_id\":\"4412\",\"correction\":0}"));
        service.drop("b-005.json", Messages.odds("p-fallback-2", "{\"fight_id\":\"1234\",\"card_id\":\"4412\",\"correction\":\"2\"}"));

        await().atMost(Duration.ofSeconds(30)).until(() -> partner.pushes().stream()
                .filter(r -> r.getHeader("Idempotency-Key").startsWith("p-")).count() >= 5);

        assertPush("p-ext", "/partner/v1/liveodds/42/match:777/odds");
        assertPush("p-map-1", "/partner/v1/liveodds/42/match:5550021/odds");
        assertPush("p-map-2", "/partner/v1/liveodds/42/match:5550022/odds");
        assertPush("p-fallback", "/partner/v1/liveodds/42/match:44120070/odds");
        assertPush("p-fallback-2", "/partner/v1/liveodds/42/match:441212342/odds");
    }

    @Test
    void invalidFilesEndInTheDeadLetterStoreWhileValidOnesAroundThemAreDelivered() throws Exception {
        long before = service.deadLetterCount();
        service.drop("c-001.json", Messages.odds("c-valid-1", Messages.external("3", 900)));
        service.drop("c-002.json", "this is { not json");
        service.drop("c-003.json", Messages.message("lineup", "c-unknown-type", Messages.external("3", 900)));
        service.drop("c-004.json", "{\"message_type\":\"odds\",\"odds_type\":\"delta\",\"timestamp\":\"2026-11-21T20:15:03.123Z\","
                + "\"fight_metadata\":{\"fight_id\":\"3\"}}");
        service.drop("c-005.json", Messages.odds("c-unresolvable", "{\"fight_id\":\"x9\",\"card_id\":\"abc\"}"));
        service.drop("c-006.json", "");
        service.drop("c-007.json", Messages.odds("c-valid-2", Messages.external("3", 900)));

        await().atMost(Duration.ofSeconds(30)).until(() -> service.deadLetterCount() >= before + 5
                && partner.pushes().stream().anyMatch(r -> "c-valid-2".equals(r.getHeader("Idempotency-Key"))));
        assertThat(partner.pushes().stream().filter(r -> "c-valid-1".equals(r.getHeader("Idempotency-Key")))).hasSize(1);

        List<JsonNode> letters = service.deadLetterEntries();
        assertThat(reasonFor(letters, "this is { not json")).startsWith("not JSON");
        assertThat(letters).anySatisfy(l -> {
            assertThat(l.path("message_id").asText()).isEqualTo("c-unknown-type");
            assertThat(l.path("reason").asText()).contains("unknown message_type 'lineup'");
            assertThat(l.path("body").path("message_type").asText()).isEqualTo("lineup");
        });
        assertThat(letters).anySatisfy(l -> assertThat(l.path("reason").asText()).isEqualTo("missing field message_id"));
        assertThat(letters).anySatisfy(l -> {
            assertThat(l.path("message_id").asText()).isEqualTo("c-unresolvable");
            assertThat(l.path("reason").asText()).startsWith("unresolvable match");
        });
        assertThat(letters).anySatisfy(l -> assertThat(l.path("reason").asText()).isEqualTo("empty message"));
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(service.done().resolve("c-002.json")));
    }

    private static String reasonFor(List<JsonNode> letters, String body) {
        return letters.stream().filter(l -> body.equals(l.path("body").asText())).findFirst().orElseThrow()
                .path("reason").asText();
    }


    private static void assertPush(String messageId, String path) throws Exception {
        LoggedRequest request = partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key")))
                .findFirst().orElseThrow(() -> new AssertionError("no push with Idempotency-Key " + messageId));
        assertThat(request.getUrl()).isEqualTo(path);
        assertThat(request.getHeader("Authorization")).isEqualTo("Bearer " + WireMockPartner.TOKEN);
        assertThat(request.getHeader("Content-Type")).isEqualTo("application/json");
        JsonNode body = JSON.readTree(request.getBodyAsString());
        if (path.endsWith("/odds")) {
            assertThat(request.getBodyAsString()).as("market content passes through untouched").contains("\"odds\":1.850");
        }
        assertThat(body.path("message_id").asText()).isEqualTo(messageId);
        assertThat(body.path("fight_metadata").path("fight_id_sr").asText()).isEqualTo(path.split("/")[5]);
        // nothing the source carried in reaches the partner
        assertThat(request.getHeaders().keys()).noneMatch(h -> h.startsWith("Camel") || h.equalsIgnoreCase("breadcrumbId"));
    }
}
