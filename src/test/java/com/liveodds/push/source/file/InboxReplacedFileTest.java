package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.LoopbackPartner.Arrival;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A producer renames a new message over an inbox file whose message is being delivered: the new one is pushed too. */
class InboxReplacedFileTest {

    @Test
    void aMessageRenamedOverAFileInHandIsReadAndPushedNotMovedToDoneUnread(@TempDir Path work) throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner().latency(1500);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work).start()) {
            service.drop("r-1.json", Messages.odds("first", Messages.external("7", 777)));
            await().atMost(Duration.ofSeconds(30)).until(() -> partner.mostInHand() >= 1);

            // the producer's way: written under a hidden name, renamed into place, over the file in hand
            Path hidden = service.inbox().resolve(".r-1.json");
            Files.writeString(hidden, Messages.odds("replacement", Messages.external("7", 777)));
            Files.move(hidden, service.inbox().resolve("r-1.json"), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);

            await().atMost(Duration.ofSeconds(30)).until(() -> partner.arrivals().stream().map(Arrival::messageId)
                    .anyMatch("replacement"::equals));
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(service.inbox().resolve("r-1.json")));
            assertThat(partner.arrivals().stream().filter(a -> !a.isHeartbeat()).map(Arrival::messageId))
                    .startsWith("first", "replacement");
        }
    }
}
