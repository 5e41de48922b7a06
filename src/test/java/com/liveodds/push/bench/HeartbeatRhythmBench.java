package com.liveodds.push.bench;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How late heartbeats are with many live idle matches (default 1,000; -Dbench.matches=10000). Not a test: it
 * prints the lateness of each heartbeat gap beyond the 5 s interval. Run with {@code mvn -B verify -Pbench -Dtest=HeartbeatRhythmBench}.
 */
@Tag("bench")
class HeartbeatRhythmBench {

    @Test
    void heartbeatLatenessWithManyLiveMatches(@TempDir Path work) throws Exception {
        int matches = Integer.getInteger("bench.matches", 1000);
        int rounds = Integer.getInteger("bench.rounds", 4);
        WireMockServer partner = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort().containerThreads(64)
                .asynchronousResponseEnabled(false));
        partner.start();
        partner.stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"bench\",\"token_type\":\"Bearer\",\"expires_in\":3600}")));
        partner.stubFor(post(urlPathMatching("/partner/.*")).willReturn(aResponse().withStatus(202)));
        Files.createDirectories(work.resolve("inbox"));
        for (int i = 0; i < matches; i++) {
            Files.writeString(work.resolve("inbox").resolve(String.format("b-%06d.json", i)),
                    Messages.odds("bench-" + i, Messages.external(Integer.toString(i), 500000 + i)));
        }
        try (RunningService service = RunningService.builder()
                .partner(partner.baseUrl() + "/partner", partner.baseUrl() + "/auth").work(work)
                .set("liveodds.upstream.max-silence", "0")
                .start()) {
            Duration runFor = Duration.ofSeconds(5L * (rounds + 1) + 10);
            await().atMost(runFor.plusSeconds(30)).pollInterval(Duration.ofSeconds(1)).until(() ->
                    partner.countRequestsMatching(com.github.tomakehurst.wiremock.client.WireMock
                            .postRequestedFor(urlPathMatching("/partner/.*/heartbeat")).build()).getCount() >= (long) matches * rounds);
            Map<String, List<Long>> arrivals = new HashMap<>();
            for (LoggedRequest r : partner.findAll(com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(urlPathMatching("/partner/.*")))) {
                String match = r.getUrl().split("/")[5];
                arrivals.computeIfAbsent(match, k -> new ArrayList<>()).add(r.getLoggedDate().getTime());
            }
            List<Long> lateness = new ArrayList<>();
            for (List<Long> times : arrivals.values()) {
                Collections.sort(times);
                for (int i = 1; i < times.size(); i++) {
                    lateness.add(times.get(i) - times.get(i - 1) - 5000);
                }
            }
            Collections.sort(lateness);
            System.out.printf("BENCH heartbeats: %d live matches, %d gaps measured; lateness beyond 5 s (ms): "
                            + "min %d, p50 %d, p99 %d, max %d; gaps over 500 ms late: %d%n",
                    arrivals.size(), lateness.size(), lateness.get(0), lateness.get(lateness.size() / 2),
                    lateness.get((int) (lateness.size() * 0.99)), lateness.get(lateness.size() - 1),
                    lateness.stream().filter(l -> l > 500).count());
        } finally {
            partner.stop();
        }
    }
}
