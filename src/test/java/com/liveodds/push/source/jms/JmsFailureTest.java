package com.liveodds.push.source.jms;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.apache.activemq.artemis.core.server.Queue;
import org.junit.jupiter.api.Test;

/**
 * A message that fails before it reaches its lane (here: it is invalid and the dead-letter store cannot be written)
 * must not make the broker hand back the messages already in lanes: they would come again out of order and count
 * towards the broker's redelivery limit, which would finally drop them.
 */
class JmsFailureTest {

    private static final String QUEUE = "liveodds.upstream";

    @Test
    void aMessageFailingBeforeItsLaneLeavesTheOthersInOrderAndNothingIsDropped() throws Exception {
        try (EmbeddedArtemis broker = new EmbeddedArtemis().start();
             WireMockPartner partner = new WireMockPartner().acceptingEverything();
             RunningService service = RunningService.builder()
                     .partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.source", "jms")
                     .set("liveodds.source.jms.url", broker.url())
                     .set("liveodds.source.jms.consumers", "1")
                     // not a folder that can ever be written: every dead letter fails
                     .set("liveodds.dead-letter.dir", "/dev/null/dead-letter")
                     .start()) {
            StubMapping failing = partner.server().stubFor(post(urlPathEqualTo("/partner/v1/liveodds/42/match:64001/odds"))
                    .atPriority(1).willReturn(aResponse().withStatus(500)));
            List<Outgoing> held = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                held.add(Outgoing.text("41", Messages.odds("p-" + i, Messages.external("41", 64001))));
            }
            broker.send(QUEUE, held);
            Queue queue = await().atMost(Duration.ofSeconds(30)).until(() -> broker.queue(QUEUE), q -> q != null);
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.getDeliveringCount() == 3);

            broker.send(QUEUE, List.of(Outgoing.text("99", "this is not json")));
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.getDeliveringCount() == 4);
            partner.server().removeStub(failing);
            await().atMost(Duration.ofSeconds(30)).until(() -> attemptsOf(partner).contains("p-3"));
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.getMessagesAcknowledged() == 3);

            assertThat(collapse(attemptsOf(partner))).as("the held messages in order, once each after the retries")
                    .containsExactly("p-1", "p-2", "p-3");
            assertThat(queue.getMessagesKilled()).as("nothing reached the broker's redelivery limit").isZero();
            assertThat(queue.getDeliveringCount()).as("the failed message waits unacknowledged for a restart").isEqualTo(1);
        }
    }

    private static List<String> attemptsOf(WireMockPartner partner) {
        List<String> keys = new ArrayList<>();
        for (LoggedRequest r : partner.pushes("odds")) {
            if (r.getUrl().contains("match:64001")) {
                keys.add(r.getHeader("Idempotency-Key"));
            }
        }
        return keys;
    }

    private static List<String> collapse(List<String> keys) {
        List<String> out = new ArrayList<>();
        for (String k : keys) {
            if (out.isEmpty() || !out.get(out.size() - 1).equals(k)) {
                out.add(k);
            }
        }
        return out;
    }
}
