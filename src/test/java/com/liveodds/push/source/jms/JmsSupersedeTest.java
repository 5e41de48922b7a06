package com.liveodds.push.source.jms;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/** Contract 17 with the JMS source: a superseded message is acknowledged at once, so the queue drains. */
class JmsSupersedeTest {

    private static final String QUEUE = "liveodds.supersede";

    @Test
    void supersededMessagesAreAcknowledgedWhileThePartnerIsStillDown() throws Exception {
        try (EmbeddedArtemis broker = new EmbeddedArtemis().start();
             WireMockPartner partner = new WireMockPartner().acceptingEverything();
             RunningService service = JmsSourceTest.jmsService(broker, partner, QUEUE)) {
            StubMapping down = partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).atPriority(1)
                    .willReturn(aResponse().withStatus(503)));
            String meta = Messages.external("19", 61901);
            broker.send(QUEUE, List.of(Outgoing.text("19", Messages.odds("j01", meta))));
            await().atMost(Duration.ofSeconds(30)).until(() -> !partner.pushes().isEmpty());
            broker.send(QUEUE, List.of(Outgoing.text("19", Messages.odds("j02", meta)),
                    Outgoing.text("19", Messages.message("market_settlement", "j03", meta)),
                    Outgoing.text("19", Messages.odds("j04", meta).replace("\"odds_type\":\"delta\"", "\"odds_type\":\"snapshot\""))));

            // j01 (in back-off) and j02 are acknowledged, the partner still down; the settlement and the snapshot are not
            await().atMost(Duration.ofSeconds(30)).until(() -> broker.queue(QUEUE).getMessageCount() == 2);
            long j01Attempts = attempts(partner, "j01");

            partner.server().removeStub(down);
            await().atMost(Duration.ofSeconds(30)).until(() -> broker.queue(QUEUE).getMessageCount() == 0);
            List<String> keys = partner.pushes().stream().map(r -> r.getHeader("Idempotency-Key")).toList();
            assertThat(keys).doesNotContain("j02").endsWith("j03", "j04");
            assertThat(attempts(partner, "j01")).isEqualTo(j01Attempts);
            assertThat(service.deadLetterCount()).isZero();
        }
    }

    private static long attempts(WireMockPartner partner, String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).count();
    }
}
