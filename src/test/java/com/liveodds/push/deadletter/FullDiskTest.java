package com.liveodds.push.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.TinyDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract 22, "a full disk refuses new work with a clear error and loses nothing accepted", on a real full disk: the
 * retention store and the dead letters on a tmpfs filled to the last byte. Live pushes go on (a message that cannot be
 * kept for recovery is logged once and counted, not failed); a push the partner refuses, whose dead letter cannot be
 * written, stays with its source (its file in the inbox) and is dead-lettered once there is room again.
 */
class FullDiskTest {

    @TempDir
    Path work;

    @Test
    void onAFullDiskLivePushesGoOnAndARefusedOneStaysWithItsSourceUntilThereIsRoom() throws Exception {
        try (TinyDisk disk = TinyDisk.mount(work.resolve("disk"), "512k");
             LoopbackPartner partner = new LoopbackPartner();
             CapturedLogs logs = CapturedLogs.of(com.liveodds.push.recovery.RetainedMessages.class);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.dead-letter.dir", disk.dir().resolve("dead-letter").toString())
                     .set("liveodds.recovery.dir", disk.dir().resolve("recovery").toString())
                     .set("liveodds.heartbeat.interval", "1h")
                     .work(work.resolve("service")).start()) {
            partner.refusing(path -> path.contains("/match:53002/"));
            service.drop("0-before.json", Messages.odds("before", Messages.external("f1", 53001)));
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner).contains("before"));

            disk.fill();
            List<String> live = IntStream.range(1, 6).mapToObj(i -> "live-" + i).toList();
            for (int i = 0; i < live.size(); i++) {
                service.drop(i + 1 + "-" + live.get(i) + ".json", Messages.odds(live.get(i), Messages.external("f1", 53001)));
            }
            service.drop("9-refused.json", Messages.odds("refused", Messages.external("f2", 53002)));
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner).containsAll(live)
                    && partner.arrivals().stream().anyMatch(r -> r.messageId().equals("refused")));
            // refused, its dead letter not written: the message is not acknowledged, its file stays in the inbox
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                    .until(() -> Files.exists(service.inbox().resolve("9-refused.json")) && service.deadLetterCount() == 0);
            assertThat(logs.messages()).filteredOn(m -> m.contains("cannot be kept")).as("logged once").hasSize(1);
            assertThat(MetricsScrape.of(service).value("liveodds_recovery_not_retained_total")).isGreaterThanOrEqualTo(live.size());

            disk.free();
            await().atMost(Duration.ofSeconds(30)).until(() -> service.deadLetterCount() == 1
                    && Files.exists(service.done().resolve("9-refused.json")));
            service.drop("10-after.json", Messages.odds("after", Messages.external("f1", 53001)));
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner).contains("after")
                    && logs.messages().stream().anyMatch(m -> m.contains("kept") && m.contains("again")));
        }
    }

    private static List<String> delivered(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> r.status() == 202).map(LoopbackPartner.Arrival::messageId).toList();
    }
}
