package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file source with two partners, stopped while one of them is down: the files it holds go back to the inbox
 * (nothing moves to .done/ for a partner that has not got it), and after a restart that partner gets them all.
 */
class FileSourcePartnersShutdownTest {

    @TempDir
    Path work;

    @Test
    void aStopWhileAPartnerIsDownLeavesItsFilesInTheInboxAndItGetsThemAfterTheRestart() throws Exception {
        List<String> ids = IntStream.range(0, 6).mapToObj(i -> String.format("stop-%02d", i)).toList();
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner()) {
            b.failing(path -> true);
            RunningService first = start(a, b);
            try {
                for (String id : ids) {
                    first.drop(id + ".json", Messages.odds(id, Messages.external("s", 901)));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> delivered(a).containsAll(ids));
                await().atMost(Duration.ofSeconds(30)).until(() -> b.arrivals().stream().anyMatch(r -> "stop-00".equals(r.messageId())));
            } finally {
                long stopping = System.nanoTime();
                first.close();
                assertThat((System.nanoTime() - stopping) / 1_000_000).as("ms to stop while b is down").isLessThan(30_000);
            }
            assertThat(ids).allSatisfy(id -> assertThat(work.resolve("inbox").resolve(id + ".json")).exists());

            b.failing(path -> false);
            try (RunningService second = start(a, b)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(b).containsAll(ids));
                await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream().allMatch(id -> Files.exists(second.done().resolve(id + ".json"))));
            }
        }
    }

    private RunningService start(LoopbackPartner a, LoopbackPartner b) {
        return RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .set("liveodds.delivery.backoff.initial", "50ms")
                .set("liveodds.delivery.backoff.max", "200ms")
                .work(work)
                .start();
    }

    private static List<String> delivered(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> r.status() == 202 && r.messageId() != null).map(LoopbackPartner.Arrival::messageId)
                .distinct().toList();
    }
}
