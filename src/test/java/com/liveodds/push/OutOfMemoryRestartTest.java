package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RawPartner;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that cannot go on ends (contract 22): the service, started with the default launch's JVM options but a heap too
 * small for what a stalled partner leaves it holding, runs out of memory on a burst of large messages; it exits at
 * once with a non-zero status instead of going on half-dead, and once restarted (by the test, as its supervisor) with
 * the same options, every message of the file source it had not acknowledged reaches the partner.
 */
class OutOfMemoryRestartTest {

    private static final String TOKEN = "{\"access_token\":\"tok-1\",\"token_type\":\"Bearer\",\"expires_in\":3600}";
    private static final int MESSAGES = 150;

    @TempDir
    Path work;

    @Test
    void aServiceOutOfMemoryExitsAndAfterItsRestartNothingUnacknowledgedIsLost() throws Exception {
        CountDownLatch released = new CountDownLatch(1);
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        RawPartner.Behaviour token = RawPartner.json(200, TOKEN);
        RawPartner.Behaviour accepted = RawPartner.status(202);
        try (RawPartner partner = new RawPartner((request, socket, out) -> {
            if (request.path().endsWith("/oauth/token")) {
                return token.answer(request, socket, out);
            }
            if (released.getCount() > 0) {
                // stalled: the push is held until the test releases the partner, then dropped unanswered
                released.await();
                return false;
            }
            delivered.add(request.header("Idempotency-Key"));
            return accepted.answer(request, socket, out);
        }).keepingNoRequests()) {
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.baseUrl(), work);
            // the queues' byte bound sized past the heap, so that the heap runs out
            settings.put("liveodds.delivery.queue-bytes", "1GB");
            List<String> ids = burst(work.resolve("inbox"), MESSAGES, 256 * 1024);
            List<String> options = smallHeap();

            URI live = URI.create("http://127.0.0.1:" + settings.get("camel.management.port") + "/observe/health/live");

            try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"), options)) {
                // without -XX:+ExitOnOutOfMemoryError it would go on, its threads failing one by one
                await("the service out of memory exits").atMost(Duration.ofSeconds(120)).until(() -> !first.isAlive());
                assertThat(first.exitValue()).as("a failing status: its supervisor restarts it").isNotZero();
                assertThat(first.log()).contains("Terminating due to java.lang.OutOfMemoryError");
            }
            assertThat(ServiceProcess.answersOk(live)).as("liveness not left UP").isFalse();
            assertThat(delivered).isEmpty();

            released.countDown();
            try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"), options)) {
                await().atMost(Duration.ofSeconds(120)).until(() -> delivered.containsAll(ids));
                await("acknowledged").atMost(Duration.ofSeconds(30))
                        .until(() -> ids.stream().allMatch(id -> Files.exists(work.resolve("inbox/.done/" + id + ".json"))));
                assertThat(second.isAlive()).isTrue();
                assertThat(work.resolve("dead-letter")).as("nothing dead-lettered").doesNotExist();
            }
        }
    }

    /** The default launch's JVM options, with a heap that holds far fewer large messages than the burst brings. */
    private static List<String> smallHeap() {
        List<String> options = new ArrayList<>();
        for (String option : DefaultJvm.OPTIONS) {
            // the young generation a quarter of the heap, as in the default launch
            options.add(option.startsWith("-Xmx") ? "-Xmx64m" : option.startsWith("-Xms") ? "-Xms32m"
                    : option.startsWith("-Xmn") ? "-Xmn16m" : option);
        }
        return options;
    }

    /** Large messages ({@code size} characters of padding each, one match each) in the file source's inbox, in send order. */
    private static List<String> burst(Path inbox, int messages, int size) throws IOException {
        String padding = "x".repeat(size);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            String id = String.format("oom-%04d", i);
            ids.add(id);
            String message = "{\"message_id\":\"" + id + "\",\"message_type\":\"odds\",\"odds_type\":\"delta\",\"timestamp\":\""
                    + Instant.now() + "\",\"fight_metadata\":" + Messages.external("f" + i, 5000 + i)
                    + ",\"markets\":[{\"id\":\"1\",\"status\":1,\"name\":\"" + padding
                    + "\",\"outcomes\":[{\"id\":\"1\",\"odds\":1.850,\"active\":true}]}]}";
            RunningService.drop(inbox, id + ".json", message);
        }
        return ids;
    }
}
