package com.liveodds.push.delivery;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The service process killed hard mid-stream, and stopped with SIGTERM while a push is in retry. */
class CrashAndShutdownTest {

    @TempDir
    Path work;
    private WireMockPartner partner;

    @BeforeEach
    void setUp() {
        partner = new WireMockPartner().acceptingEverything();
    }

    @AfterEach
    void tearDown() {
        partner.close();
    }

    private Map<String, String> settings() {
        Map<String, String> s = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
        return s;
    }

    @Test
    void afterAHardKillMidStreamAndARestartNothingIsLost() throws Exception {
        partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).willReturn(aResponse().withStatus(202).withFixedDelay(15)));
        Files.createDirectories(work.resolve("inbox"));
        int total = 400;
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            String id = String.format("crash-%04d", i);
            ids.add(id);
            Files.writeString(work.resolve("inbox").resolve(id + ".json"), Messages.odds(id, Messages.external(Integer.toString(i % 10), 3000 + i % 10)));
        }
        Map<String, String> settings = settings();
        try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> partner.pushes().size() >= total / 4);
            first.kill();
        }
        int beforeRestart = partner.pushes().size();
        assertThat(beforeRestart).isLessThan(total);
        try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"))) {
            await().atMost(Duration.ofSeconds(90)).until(() -> deliveredIds().containsAll(ids));
            // acknowledged too: the file moves once its push is delivered, a moment after the partner has it
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(work.resolve("inbox/.done/crash-0399.json")));
        }
        List<LoggedRequest> pushes = partner.pushes();
        assertThat(deliveredIds()).containsAll(ids);
        // per match, the delivered sequence is the input order once consecutive repeats are collapsed
        Map<String, List<String>> byMatch = new LinkedHashMap<>();
        for (LoggedRequest r : pushes) {
            byMatch.computeIfAbsent(r.getUrl(), k -> new ArrayList<>()).add(r.getHeader("Idempotency-Key"));
        }
        for (Map.Entry<String, List<String>> e : byMatch.entrySet()) {
            List<String> collapsed = collapseRepeats(e.getValue());
            assertThat(collapsed).as("order at %s", e.getKey()).isSorted();
        }
        long repeats = pushes.size() - ids.size();
        System.out.printf("crash test: %d messages, %d pushes before the kill, %d repeats after restart%n", total, beforeRestart, repeats);
    }

    @Test
    void sigtermWhileAPushIsInRetryExitsPromptlyAndLeavesTheMessageUnacknowledged() throws Exception {
        partner.server().resetAll();
        partner.tokenEndpointIssuing("t", 3600);
        partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).willReturn(aResponse().withStatus(503).withHeader("Retry-After", "120")));
        Map<String, String> settings = settings();
        // longer than the Retry-After: only handing the waiting push back at once lets the service exit early
        settings.put("camel.main.shutdown-timeout", "300");
        Files.createDirectories(work.resolve("inbox"));
        try (ServiceProcess service = ServiceProcess.start(settings, work.resolve("term.log"))) {
            RunningService.drop(work.resolve("inbox"), "term-1.json", Messages.odds("term-1", Messages.external("1", 77)));
            // a process of its own starts first: on a loaded machine that alone can take half a minute
            await().atMost(Duration.ofSeconds(90)).until(() -> partner.pushes().size() >= 1);
            // queued behind term-1 in the queue of its match: it must not go out while term-1 is handed back
            RunningService.drop(work.resolve("inbox"), "term-2.json", Messages.odds("term-2", Messages.external("1", 77)));
            int managementPort = Integer.parseInt(settings.get("camel.management.port"));
            await().atMost(Duration.ofSeconds(30)).until(() -> Double.valueOf(2.0)
                    .equals(MetricsScrape.of(managementPort).value("liveodds_backlog_messages")));
            // exits long before the Retry-After (120 s) ends: the push was handed back, not waited out
            Duration took = service.terminate(Duration.ofSeconds(60));
            System.out.printf("SIGTERM to exit while a push waited on Retry-After 120: %d ms%n", took.toMillis());
        }
        assertThat(work.resolve("inbox").resolve("term-1.json")).as("not acknowledged").exists();
        assertThat(work.resolve("inbox").resolve("term-2.json")).as("not acknowledged").exists();
        assertThat(deliveredIds()).as("nothing overtook the handed-back push").containsOnly("term-1");
        assertThat(work.resolve("dead-letter")).doesNotExist();

        partner.server().resetAll();
        partner.acceptingEverything();
        try (ServiceProcess restarted = ServiceProcess.start(settings, work.resolve("term2.log"))) {
            await().atMost(Duration.ofSeconds(90)).until(() -> deliveredIds().contains("term-2"));
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(work.resolve("inbox/.done/term-2.json")));
            assertThat(partner.pushes()).extracting(r -> r.getHeader("Idempotency-Key")).containsExactly("term-1", "term-2");
        }
    }

    private Set<String> deliveredIds() {
        return partner.pushes().stream().map(r -> r.getHeader("Idempotency-Key")).collect(Collectors.toSet());
    }

    static List<String> collapseRepeats(List<String> sequence) {
        List<String> out = new ArrayList<>();
        for (String s : sequence) {
            if (out.isEmpty() || !out.get(out.size() - 1).equals(s)) {
                out.add(s);
            }
        }
        return out;
    }
}
