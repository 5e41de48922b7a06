package com.liveodds.push.heartbeat;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/** Heartbeats as the partner receives them over real HTTP. A 2 s interval keeps the test short; the rules are the same. */
class HeartbeatTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long INTERVAL_MS = 2000;
    private static final long TOLERANCE_MS = 500;
    /**
     * The interval counts from when a push is sent; the partner logs when it arrives, which can lag by a varying
     * connect and scheduling delay on a loaded machine, so two arrivals can be a little closer than the interval.
     */
    private static final long ARRIVAL_JITTER_MS = 200;

    private static RunningService start(WireMockPartner partner, String maxSilence) {
        return RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.heartbeat.interval", "2s")
                .set("liveodds.upstream.max-silence", maxSilence)
                .start();
    }

    @Test
    void anIdleMatchGetsAHeartbeatEveryIntervalWithTheContractBody() throws Exception {
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything(); RunningService service = start(partner, "30s")) {
            service.drop("h-001.json", Messages.odds("idle-1", Messages.external("1", 101)));
            service.drop("h-002.json", Messages.odds("idle-2", Messages.external("2", 102)));
            await().atMost(Duration.ofSeconds(20)).until(() -> heartbeats(partner, "match:101").size() >= 4
                    && heartbeats(partner, "match:102").size() >= 4);

            for (String match : List.of("match:101", "match:102")) {
                List<LoggedRequest> pushes = pushesTo(partner, match);
                assertThat(pushes.get(0).getHeader("Idempotency-Key")).startsWith("idle-");
                for (long gap : gaps(pushes)) {
                    assertThat(gap).isBetween(INTERVAL_MS - ARRIVAL_JITTER_MS, INTERVAL_MS + TOLERANCE_MS);
                }
            }
            LoggedRequest heartbeat = heartbeats(partner, "match:101").get(0);
            JsonNode body = JSON.readTree(heartbeat.getBodyAsString());
            assertThat(body.fieldNames()).toIterable().containsExactlyInAnyOrder("message_id", "message_type", "timestamp", "fight_metadata");
            assertThat(body.path("message_type").asText()).isEqualTo("heartbeat");
            assertThat(body.path("timestamp").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
            assertThat(body.path("fight_metadata").fieldNames()).toIterable().containsExactly("fight_id_sr");
            assertThat(body.path("fight_metadata").path("fight_id_sr").asText()).isEqualTo("match:101");
            assertThat(heartbeat.getHeader("Authorization")).isEqualTo("Bearer " + WireMockPartner.TOKEN);
            assertThat(heartbeat.getHeader("Idempotency-Key")).isEqualTo(body.path("message_id").asText());
            assertThat(heartbeats(partner, "match:101")).extracting(r -> r.getHeader("Idempotency-Key")).doesNotHaveDuplicates();
        }
    }

    @Test
    void aSlowPartnerDoesNotStretchTheRhythmBecauseTheIntervalCountsFromSending() throws Exception {
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything(); RunningService service = start(partner, "30s")) {
            partner.server().stubFor(post(urlPathMatching("/partner/.*/heartbeat")).atPriority(1)
                    .willReturn(aResponse().withStatus(202).withFixedDelay(1200)));
            service.drop("slow-001.json", Messages.odds("slow-1", Messages.external("6", 106)));
            await().atMost(Duration.ofSeconds(20)).until(() -> heartbeats(partner, "match:106").size() >= 4);
            for (long gap : gaps(heartbeats(partner, "match:106"))) {
                assertThat(gap).isBetween(INTERVAL_MS - ARRIVAL_JITTER_MS, INTERVAL_MS + TOLERANCE_MS);
            }
        }
    }

    @Test
    void aHeartbeatThatFindsThePartnersQueueFullIsSkippedQuietlyAndTheNextOneGoes() throws Exception {
        try (CapturedLogs logs = CapturedLogs.all();
             WireMockPartner partner = new WireMockPartner().acceptingEverything();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.heartbeat.interval", "2s")
                     .set("liveodds.delivery.queue-size", "2")
                     .start()) {
            // match 105's pushes take 3 s each: two of them fill the partner's queue (one on the wire, one waiting)
            partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/42/match:105/.*")).atPriority(1)
                    .willReturn(aResponse().withStatus(202).withFixedDelay(3000)));
            service.drop("q-001.json", Messages.odds("quiet-1", Messages.external("4", 104)));
            await().atMost(Duration.ofSeconds(20)).until(() -> pushesTo(partner, "match:104").size() == 1);
            for (int i = 2; i <= 4; i++) {
                service.drop(String.format("q-%03d.json", i), Messages.odds("slow-" + i, Messages.external("5", 105)));
            }

            // match 104 goes idle while the queue is full; its heartbeats come once there is room
            await().atMost(Duration.ofSeconds(30)).until(() -> heartbeats(partner, "match:104").size() >= 1
                    && pushesTo(partner, "match:105").size() == 3);
            assertThat(logs.messages()).as("back-pressure, not an error").noneMatch(m -> m.contains("QueueFull") || m.contains("is full"));
        }
    }

    @Test
    void aBusyMatchGetsNoneAndHeartbeatsResumeWhenItGoesIdle() throws Exception {
        ScheduledExecutorService producer = Executors.newSingleThreadScheduledExecutor();
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything(); RunningService service = start(partner, "30s")) {
            AtomicInteger n = new AtomicInteger();
            producer.scheduleAtFixedRate(() -> {
                int i = n.incrementAndGet();
                service.drop(String.format("busy-%04d.json", i), Messages.odds("busy-" + i, Messages.external("3", 103)));
            }, 0, 400, TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(20)).until(() -> n.get() >= 15);
            producer.shutdownNow();
            int sent = n.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> pushesTo(partner, "match:103").stream()
                    .filter(r -> r.getUrl().endsWith("/odds")).count() >= sent);
            assertThat(heartbeats(partner, "match:103")).as("busy for %d pushes", sent).isEmpty();

            await().atMost(Duration.ofSeconds(30)).until(() -> heartbeats(partner, "match:103").size() >= 1);
            List<LoggedRequest> pushes = pushesTo(partner, "match:103");
            long lastOdds = pushes.stream().filter(r -> r.getUrl().endsWith("/odds")).mapToLong(r -> r.getLoggedDate().getTime()).max().orElseThrow();
            long firstHeartbeat = heartbeats(partner, "match:103").get(0).getLoggedDate().getTime();
            assertThat(firstHeartbeat - lastOdds).isBetween(INTERVAL_MS - ARRIVAL_JITTER_MS, INTERVAL_MS + TOLERANCE_MS);
        } finally {
            producer.shutdownNow();
        }
    }

    @Test
    void upstreamSilenceStopsHeartbeatsAndTurnsReadinessDownUntilUpstreamSpeaksAgain() throws Exception {
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything(); RunningService service = start(partner, "5s")) {
            service.drop("u-001.json", Messages.odds("silence-1", Messages.external("4", 104)));
            await().atMost(Duration.ofSeconds(30)).until(() -> heartbeats(partner, "match:104").size() >= 1);
            await().atMost(Duration.ofSeconds(15)).until(() -> service.management("/observe/health").statusCode() == 503);
            HttpResponse<String> down = service.management("/observe/health");
            assertThat(down.body()).contains("\"name\":\"upstream\"").contains("\"status\":\"DOWN\"");
            assertThat(service.management("/observe/health/live").statusCode()).as("liveness stays up").isEqualTo(200);

            int heartbeatsWhenSilent = heartbeats(partner, "match:104").size();
            await("no heartbeat while upstream is silent").during(Duration.ofMillis(2 * INTERVAL_MS + TOLERANCE_MS))
                    .atMost(Duration.ofSeconds(30)).until(() -> heartbeats(partner, "match:104").size() == heartbeatsWhenSilent);

            service.drop("u-002.json", Messages.alive());
            await().atMost(Duration.ofSeconds(5)).until(() -> heartbeats(partner, "match:104").size() > heartbeatsWhenSilent);
            await().atMost(Duration.ofSeconds(5)).until(() -> service.management("/observe/health").statusCode() == 200);
        }
    }

    @Test
    void noHeartbeatOvertakesAPushInRetry() throws Exception {
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything(); RunningService service = start(partner, "30s")) {
            var wm = partner.server();
            wm.stubFor(post(urlPathMatching("/partner/.*/odds")).withHeader("Idempotency-Key", equalTo("held-2"))
                    .inScenario("held").whenScenarioStateIs("Started")
                    .willReturn(aResponse().withStatus(503).withHeader("Retry-After", "5")).willSetStateTo("ok"));
            service.drop("o-001.json", Messages.odds("held-1", Messages.external("5", 105)));
            await().atMost(Duration.ofSeconds(30)).until(() -> heartbeats(partner, "match:105").size() >= 1);
            service.drop("o-002.json", Messages.odds("held-2", Messages.external("5", 105)));
            await().atMost(Duration.ofSeconds(20)).until(() -> pushesTo(partner, "match:105").stream()
                    .filter(r -> "held-2".equals(r.getHeader("Idempotency-Key"))).count() == 2);

            List<LoggedRequest> pushes = pushesTo(partner, "match:105");
            int first = indexOf(pushes, "held-2");
            int last = pushes.size() - 1 - indexOf(reversed(pushes), "held-2");
            assertThat(last - first).as("nothing between the failed attempt and its retry 5 s later").isEqualTo(1);
            await().atMost(Duration.ofSeconds(5)).until(() -> pushesTo(partner, "match:105").size() > last + 1);
            assertThat(pushesTo(partner, "match:105").get(last + 1).getUrl()).endsWith("/heartbeat");
        }
    }

    static List<LoggedRequest> pushesTo(WireMockPartner partner, String match) {
        List<LoggedRequest> list = new ArrayList<>(partner.pushes().stream().filter(r -> r.getUrl().contains("/" + match + "/")).toList());
        list.sort(Comparator.comparing(LoggedRequest::getLoggedDate));
        return list;
    }

    static List<LoggedRequest> heartbeats(WireMockPartner partner, String match) {
        return pushesTo(partner, match).stream().filter(r -> r.getUrl().endsWith("/heartbeat")).toList();
    }

    static List<Long> gaps(List<LoggedRequest> pushes) {
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < pushes.size(); i++) {
            gaps.add(pushes.get(i).getLoggedDate().getTime() - pushes.get(i - 1).getLoggedDate().getTime());
        }
        return gaps;
    }

    private static int indexOf(List<LoggedRequest> pushes, String key) {
        for (int i = 0; i < pushes.size(); i++) {
            if (key.equals(pushes.get(i).getHeader("Idempotency-Key"))) {
                return i;
            }
        }
        return -1;
    }

    private static List<LoggedRequest> reversed(List<LoggedRequest> list) {
        List<LoggedRequest> r = new ArrayList<>(list);
        java.util.Collections.reverse(r);
        return r;
    }

}
