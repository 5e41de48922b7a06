package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.LoopbackPartner.Arrival;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several partners (contract 16): a producer renames a new message over an inbox file that one partner is done with
 * and another still has in hand. Each partner is pushed the new message too, after the first, and the file moves to
 * .done/ only then.
 */
class FileSourcePartnersReplacedFileTest {

    @Test
    void aMessageRenamedOverAFileSomePartnersAreDoneWithReachesEveryPartner(@TempDir Path work) throws Exception {
        try (LoopbackPartner fast = new LoopbackPartner();
             LoopbackPartner slow = new LoopbackPartner().latency(1500);
             RunningService service = RunningService.builder()
                     .partner("fast", "101", fast.baseUrl(), fast.authUrl())
                     .partner("slow", "202", slow.baseUrl(), slow.authUrl())
                     .work(work).start()) {
            service.drop("r-1.json", Messages.odds("first", Messages.external("7", 777)));
            await().atMost(Duration.ofSeconds(30)).until(() -> ids(fast).contains("first") && slow.mostInHand() >= 1);

            // the producer's way: written under a hidden name, renamed into place, over the file
            Path hidden = service.inbox().resolve(".r-1.json");
            Files.writeString(hidden, Messages.odds("replacement", Messages.external("7", 777)));
            Files.move(hidden, service.inbox().resolve("r-1.json"), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);

            await().atMost(Duration.ofSeconds(30)).until(() -> ids(fast).contains("replacement") && ids(slow).contains("replacement"));
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(service.inbox().resolve("r-1.json")));
            assertThat(ids(fast)).containsExactly("first", "replacement");
            assertThat(ids(slow)).containsExactly("first", "replacement");
        }
    }

    private static List<String> ids(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(a -> !a.isHeartbeat() && a.status() / 100 == 2).map(Arrival::messageId).toList();
    }
}
