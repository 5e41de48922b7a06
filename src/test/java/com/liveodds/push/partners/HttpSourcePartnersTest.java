package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP source with several partners (contract 16): it keeps no backlog of its own, so it answers 202 once every
 * partner that booked the match has the message delivered, superseded or dead-lettered, listing each partner's
 * outcome; a partner that is down or whose queues are full gets it dead-lettered at once, for it alone, and holds
 * neither the producer nor the other partners. Its bearer tokens are its own (liveodds.source.http.tokens), not a
 * partner's.
 */
class HttpSourcePartnersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String INGEST = "Bearer ingest-token-1";

    private static RunningService.Builder twoPartners(LoopbackPartner a, LoopbackPartner b, Object bookingB) {
        return RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .set("liveodds.partners.a.fixtures-tokens", "fx-a-1")
                .set("liveodds.partners.b.fixtures-tokens", "fx-b-1")
                .set("liveodds.partners.b.booking", bookingB.toString())
                .set("liveodds.source", "http")
                .set("liveodds.source.http.tokens", "ingest-token-1, ingest-token-2")
                .set("camel.main.shutdown-timeout", "1");
    }

    @Test
    void theReceiptListsEachPartnersOutcomeAndOnlyTheSourcesTokensFeedIt(@TempDir Path work) throws Exception {
        Path bookingB = Files.writeString(work.resolve("booking-b.txt"), "match:900\n");
        try (CapturedLogs logs = CapturedLogs.all();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             RunningService service = twoPartners(a, b, bookingB).work(work).start()) {
            JsonNode both = JSON.readTree(accepted(service, Messages.odds("both-1", Messages.external("1", 900))));
            assertThat(both.path("message_id").asText()).isEqualTo("both-1");
            assertThat(both.path("match_id").asText()).isEqualTo("match:900");
            assertThat(both.path("status").asText()).isEqualTo("delivered");
            assertThat(both.path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"delivered\"}"));
            assertThat(ids(a)).containsExactly("both-1");
            assertThat(ids(b)).containsExactly("both-1");

            JsonNode onlyA = JSON.readTree(accepted(service, Messages.odds("only-a-1", Messages.external("2", 901))));
            assertThat(onlyA.path("status").asText()).isEqualTo("delivered");
            assertThat(onlyA.path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"not_booked\"}"));
            assertThat(ids(b)).containsExactly("both-1");

            assertThat(JSON.readTree(accepted(service, Messages.alive())).path("status").asText()).isEqualTo("received");

            // a partner's fixtures token feeds no partner's upstream; the source's token opens no fixtures
            for (String authorization : new String[] {"Bearer fx-a-1", "Bearer fx-b-1", null, "Bearer ingest-token-3"}) {
                assertThat(post(service, Messages.odds("refused-1", Messages.external("1", 900)), authorization).statusCode())
                        .as(String.valueOf(authorization)).isEqualTo(401);
            }
            assertThat(accepted(service, Messages.odds("second-token-1", Messages.external("1", 900)), "Bearer ingest-token-2"))
                    .contains("second-token-1");
            assertThat(service.request("GET", "/v1/liveodds/101/fixtures", INGEST).statusCode()).isEqualTo(401);
            assertThat(ids(a)).doesNotContain("refused-1");
            assertThat(logs.messages()).noneMatch(m -> m.contains("ingest-token-") || m.contains("fx-a-1") || m.contains("fx-b-1"));
        }
    }

    @Test
    void aPartnerThatIsDownGetsTheMessageDeadLetteredAtOnceAndHoldsNeitherTheProducerNorTheOthers(@TempDir Path work) throws Exception {
        Path bookingB = Files.writeString(work.resolve("booking-b.txt"), "match:900\n");
        try (LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner().failing(path -> true);
             RunningService service = twoPartners(a, b, bookingB).work(work)
                     .set("liveodds.partner.down-after", "1s")
                     .set("liveodds.delivery.backoff.initial", "100ms")
                     .set("liveodds.delivery.backoff.max", "200ms")
                     .start()) {
            // b answers 503 to everything: the first message is retried until b is down (1 s of failures), not for the
            // whole retry budget (10 minutes)
            long firstStarted = System.nanoTime();
            JsonNode first = JSON.readTree(accepted(service, Messages.odds("down-1", Messages.external("1", 900))));
            assertThat(first.path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"dead_lettered\"}"));
            assertThat(Duration.ofNanos(System.nanoTime() - firstStarted)).as("far short of the retry budget")
                    .isLessThan(Duration.ofMinutes(2));
            assertThat(ids(b)).hasSizeGreaterThan(1).allMatch("down-1"::equals);
            PartnerHealth healthOfB = service.partner("b").health();
            await().atMost(Duration.ofSeconds(30)).until(() -> !healthOfB.isUp());
            assertThat(service.partner("a").health().isUp()).isTrue();

            // b is down now: its messages are dead-lettered for it at once, a gets them as fast as ever
            for (int i = 2; i <= 6; i++) {
                long started = System.nanoTime();
                JsonNode receipt = JSON.readTree(accepted(service, Messages.odds("down-" + i, Messages.external("1", 900))));
                long tookMillis = (System.nanoTime() - started) / 1_000_000;
                assertThat(receipt.path("status").asText()).isEqualTo("dead_lettered");
                assertThat(receipt.path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"dead_lettered\"}"));
                assertThat(tookMillis).as("down-" + i).isLessThan(1000);
            }
            // a match b has not booked is nothing of b's, down or not
            JsonNode notB = JSON.readTree(accepted(service, Messages.odds("not-b-1", Messages.external("2", 901))));
            assertThat(notB.path("status").asText()).isEqualTo("delivered");
            assertThat(notB.path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"not_booked\"}"));
            assertThat(ids(a)).containsExactly("down-1", "down-2", "down-3", "down-4", "down-5", "down-6", "not-b-1");
            assertThat(ids(b)).allMatch("down-1"::equals);

            // nothing lost: every message b booked is in b's dead letters, for b, with its body, to replay to it
            await().atMost(Duration.ofSeconds(5)).until(() -> service.deadLetterCount() == 6);
            List<JsonNode> letters = service.deadLetterEntries();
            assertThat(letters).extracting(l -> l.path("message_id").asText())
                    .containsExactlyInAnyOrder("down-1", "down-2", "down-3", "down-4", "down-5", "down-6");
            assertThat(letters).allSatisfy(l -> {
                assertThat(l.path("partner").asText()).isEqualTo("b");
                assertThat(l.path("kind").asText()).isEqualTo("undeliverable");
                assertThat(l.path("match_id").asText()).isEqualTo("match:900");
                assertThat(l.path("body").path("message_id").asText()).isEqualTo(l.path("message_id").asText());
            });
            assertThat(letters).filteredOn(l -> !l.path("message_id").asText().equals("down-1"))
                    .allSatisfy(l -> assertThat(l.path("reason").asText()).contains("partner b is down"));
            assertThat(letters).filteredOn(l -> l.path("message_id").asText().equals("down-1"))
                    .allSatisfy(l -> assertThat(l.path("reason").asText()).isEqualTo(
                            "HTTP 503; the partner is down (readiness) and the source keeps no backlog"));
        }
    }

    @Test
    void aPartnerWhoseQueuesAreFullGetsTheMessageDeadLetteredAtOnceInsteadOfHoldingTheProducer(@TempDir Path work) throws Exception {
        try (LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner().latency(3000);
             RunningService service = twoPartners(a, b, "all").work(work)
                     .set("liveodds.delivery.queue-size", "1")
                     .start()) {
            // b takes 3 s per push: the first message fills its one place
            CompletableFuture<HttpResponse<String>> slow = postAsync(service, Messages.odds("full-1", Messages.external("1", 900)));
            await().atMost(Duration.ofSeconds(5)).until(() -> ids(a).contains("full-1"));
            // a's one place is free again once its push has settled, a moment after the partner took it
            await().atMost(Duration.ofSeconds(5)).until(() -> service.partner("a").liveMatches().backlog() == 0);

            long started = System.nanoTime();
            JsonNode second = JSON.readTree(accepted(service, Messages.odds("full-2", Messages.external("2", 901))));
            assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(1500);
            assertThat(second.path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"dead_lettered\"}"));
            assertThat(ids(a)).contains("full-2");

            HttpResponse<String> first = slow.get();
            assertThat(first.statusCode()).isEqualTo(202);
            assertThat(JSON.readTree(first.body()).path("partners")).isEqualTo(JSON.readTree("{\"a\":\"delivered\",\"b\":\"delivered\"}"));
            List<JsonNode> letters = service.deadLetterEntries();
            assertThat(letters).hasSize(1);
            assertThat(letters.get(0).path("message_id").asText()).isEqualTo("full-2");
            assertThat(letters.get(0).path("partner").asText()).isEqualTo("b");
            assertThat(letters.get(0).path("reason").asText()).contains("queues of partner b are full");
        }
    }

    private static List<String> ids(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat()).map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static String accepted(RunningService service, String body) throws Exception {
        return accepted(service, body, INGEST);
    }

    private static String accepted(RunningService service, String body, String authorization) throws Exception {
        HttpResponse<String> response = post(service, body, authorization);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        return response.body();
    }

    private static HttpRequest request(RunningService service, String body, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return request.build();
    }

    private static HttpResponse<String> post(RunningService service, String body, String authorization) throws Exception {
        return HTTP.send(request(service, body, authorization), HttpResponse.BodyHandlers.ofString());
    }

    private static CompletableFuture<HttpResponse<String>> postAsync(RunningService service, String body) {
        return HTTP.sendAsync(request(service, body, INGEST), HttpResponse.BodyHandlers.ofString());
    }
}
