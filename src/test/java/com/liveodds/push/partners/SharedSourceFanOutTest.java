package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;

/**
 * One JMS consumer shared by two partners (contract 16, and section 7's "only this match waits"): while partner a
 * refuses one match, every other match keeps reaching both partners, and the refused message stays unacknowledged on
 * the broker until a has taken it.
 */
class SharedSourceFanOutTest {

    private static final String QUEUE = "liveodds.fan-out";

    @Test
    void aMatchRefusedByOnePartnerHoldsNoOtherMatchOfTheSource() throws Exception {
        try (EmbeddedArtemis broker = new EmbeddedArtemis().start();
             LoopbackPartner a = new LoopbackPartner().failing(path -> path.contains("/match:64001/"));
             LoopbackPartner b = new LoopbackPartner();
             RunningService service = RunningService.builder()
                     .partner("a", "101", a.baseUrl(), a.authUrl())
                     .partner("b", "202", b.baseUrl(), b.authUrl())
                     .set("liveodds.source", "jms")
                     .set("liveodds.source.jms.url", broker.url())
                     .set("liveodds.source.jms.queue", QUEUE)
                     // one consumer: a consumer held by the refused message would hold everything behind it
                     .set("liveodds.source.jms.consumers", "1")
                     .start()) {
            broker.send(QUEUE, List.of(Outgoing.text("1", Messages.odds("refused-by-a", Messages.external("1", 64001)))));
            await().atMost(Duration.ofSeconds(20)).until(() -> ids(b).contains("refused-by-a")
                    && a.arrivals().stream().anyMatch(r -> "refused-by-a".equals(r.messageId())));

            broker.send(QUEUE, List.of(
                    Outgoing.text("2", Messages.odds("other-1", Messages.external("2", 64002))),
                    Outgoing.text("3", Messages.odds("other-2", Messages.external("3", 64003)))));

            await().atMost(Duration.ofSeconds(20)).until(() -> ids(a).containsAll(List.of("other-1", "other-2"))
                    && ids(b).containsAll(List.of("other-1", "other-2")));
            assertThat(ids(a)).as("match 64001 still refused by a").doesNotContain("refused-by-a");
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.queue(QUEUE).getMessageCount() == 1);

            a.failing(path -> false);
            await().atMost(Duration.ofSeconds(60)).until(() -> ids(a).contains("refused-by-a"));
            await().atMost(Duration.ofSeconds(10)).until(() -> broker.queue(QUEUE).getMessageCount() == 0);
        }
    }

    /** The messages the partner accepted. */
    private static List<String> ids(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat() && r.status() == 202)
                .map(LoopbackPartner.Arrival::messageId).toList();
    }
}
