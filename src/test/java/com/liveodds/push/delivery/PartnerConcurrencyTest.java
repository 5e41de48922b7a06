package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * liveodds.delivery.max-in-flight is what reaches one slow partner host at once: not Apache HttpClient's default of
 * 20 connections per route, and never more than the setting.
 */
class PartnerConcurrencyTest {

    private static final int MAX_IN_FLIGHT = 48;

    @Test
    void aSlowPartnerHasMaxInFlightPushesInHandAtOnceNotTheClientsDefaultTwenty(@TempDir Path work) throws Exception {
        Files.createDirectories(work.resolve("inbox"));
        for (int i = 0; i < 120; i++) {
            Files.writeString(work.resolve("inbox").resolve(String.format("c%03d.json", i)),
                    Messages.odds(String.format("c%03d", i), Messages.external("f" + i, 9300 + i)));
        }
        try (LoopbackPartner partner = new LoopbackPartner().latency(1500);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                     .set("liveodds.delivery.max-in-flight", Integer.toString(MAX_IN_FLIGHT))
                     .set("liveodds.delivery.timeout", "10s")
                     .start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> pushes(partner).size() == 120);
            assertThat(partner.mostInHand()).as("pushes the partner had in hand at once")
                    .isGreaterThan(20).isLessThanOrEqualTo(MAX_IN_FLIGHT);
            assertThat(pushes(partner)).allMatch(a -> a.status() == 202);
        }
    }

    /** What the partner received but heartbeats (the 120 matches are live, so their heartbeats come too). */
    private static List<LoopbackPartner.Arrival> pushes(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(a -> !a.isHeartbeat()).toList();
    }
}
