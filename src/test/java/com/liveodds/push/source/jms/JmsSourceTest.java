package com.liveodds.push.source.jms;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.apache.activemq.artemis.core.server.Queue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JMS source against a real Artemis broker on loopback, pushing to a WireMock partner. */
class JmsSourceTest {

    private static final String QUEUE = "liveodds.upstream";
    private static final int CONSUMERS = 4;
    private static EmbeddedArtemis broker;
    private static WireMockPartner partner;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        broker = new EmbeddedArtemis().start();
        partner = new WireMockPartner().acceptingEverything();
        service = jmsService(broker, partner);
    }

    @AfterAll
    static void stop() throws Exception {
        service.close();
        partner.close();
        broker.close();
    }

    static RunningService jmsService(EmbeddedArtemis broker, WireMockPartner partner) {
        return jmsService(broker, partner, QUEUE);
    }

    static RunningService jmsService(EmbeddedArtemis broker, WireMockPartner partner, String queue) {
        return RunningService.builder()
                .set("liveodds.source.jms.queue", queue)
                .partner(partner.baseUrl(), partner.authUrl())
                .set("liveodds.source", "jms")
                .set("liveodds.source.jms.url", broker.url())
                .set("liveodds.source.jms.password", "jms-s3cr3t")
                .set("liveodds.source.jms.consumers", Integer.toString(CONSUMERS))
                .set("liveodds.source.jms.recovery-interval", "500")
                .start();
    }

    @Test
    void textAndBytesMessagesArePushedWithoutAnyJmsHeader() throws Exception {
        broker.send(QUEUE, List.of(
                Outgoing.text("11", Messages.odds("j-text", Messages.external("11", 61011))),
                new Outgoing("12", Messages.message("market_settlement", "j-bytes", Messages.external("12", 61012)), true)));

        await().atMost(Duration.ofSeconds(30)).until(() -> pushOf("j-text") != null && pushOf("j-bytes") != null);

        assertThat(pushOf("j-text").getUrl()).isEqualTo("/partner/v1/liveodds/42/match:61011/odds");
        assertThat(pushOf("j-bytes").getUrl()).isEqualTo("/partner/v1/liveodds/42/match:61012/market_settlement");
        for (LoggedRequest push : List.of(pushOf("j-text"), pushOf("j-bytes"))) {
            assertThat(push.getHeaders().keys()).noneMatch(h -> h.toUpperCase().startsWith("JMS")
                    || h.equalsIgnoreCase("X_Upstream_Trace") || h.startsWith("Camel"));
            assertThat(push.getHeaders().all().toString()).doesNotContain("trace-1", "corr-1", "odds-engine");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> broker.queue(QUEUE).getMessageCount() == 0);
    }

    @Test
    void messagesOfAnotherJmsTypeAreDeadLetteredOnceAndTheStreamGoesOn() throws Exception {
        long before = service.deadLetterCount();
        broker.sendMade(QUEUE, List.of(
                session -> session.createMapMessage(),
                session -> session.createObjectMessage("{\"message_id\":\"j-object\"}"),
                session -> session.createMessage(),
                session -> session.createTextMessage(Messages.odds("j-after", Messages.external("14", 61014)))));

        await().atMost(Duration.ofSeconds(30)).until(() -> pushOf("j-after") != null);
        // each one rejected and acknowledged (no JSON text: none is read, the ObjectMessage not deserialized), nothing
        // left for the broker to deliver again
        await().atMost(Duration.ofSeconds(10)).until(() -> service.deadLetterCount() == before + 3
                && broker.queue(QUEUE).getMessageCount() == 0 && broker.queue(QUEUE).getDeliveringCount() == 0);
        assertThat(service.deadLetterEntries()).filteredOn(e -> "empty".equals(e.path("reason_code").asText()))
                .as("no JSON text in any of them").hasSize(3);
    }

    @Test
    void severalConsumersKeepEachMatchInUpstreamOrder() throws Exception {
        int fights = 6;
        int perFight = 40;
        List<Outgoing> stream = new ArrayList<>();
        for (int i = 0; i < perFight; i++) {
            for (int f = 0; f < fights; f++) {
                String fight = Integer.toString(200 + f);
                stream.add(Outgoing.text(fight, Messages.odds("o-" + fight + "-" + i, Messages.external(fight, 62000 + f))));
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> waitForQueue().getConsumerCount() == CONSUMERS);
        broker.send(QUEUE, stream);

        await().atMost(Duration.ofSeconds(60)).until(() -> partner.pushes("odds").stream()
                .filter(r -> r.getHeader("Idempotency-Key").startsWith("o-")).count() >= fights * perFight);

        Map<String, List<Integer>> perMatch = new LinkedHashMap<>();
        for (LoggedRequest push : partner.pushes("odds")) {
            String key = push.getHeader("Idempotency-Key");
            if (key.startsWith("o-")) {
                String[] parts = key.split("-");
                assertThat(push.getUrl()).contains("match:" + (62000 + Integer.parseInt(parts[1]) - 200));
                perMatch.computeIfAbsent(parts[1], k -> new ArrayList<>()).add(Integer.parseInt(parts[2]));
            }
        }
        assertThat(perMatch).hasSize(fights);
        List<Integer> expected = java.util.stream.IntStream.range(0, perFight).boxed().toList();
        perMatch.forEach((fight, order) -> assertThat(order).as("order of fight %s", fight).isEqualTo(expected));
        await().atMost(Duration.ofSeconds(5)).until(() -> broker.queue(QUEUE).getMessageCount() == 0);
    }

    @Test
    void aFailingPushHoldsItsMessageUncommittedUntilItIsDelivered() throws Exception {
        StubMapping failing = partner.server().stubFor(post(urlPathEqualTo("/partner/v1/liveodds/42/match:63001/odds"))
                .atPriority(1).willReturn(aResponse().withStatus(500).withBody("{\"error\":\"down for a while\"}")));
        Queue queue = waitForQueue();
        long acknowledgedBefore = queue.getMessagesAcknowledged();
        long deadLettersBefore = service.deadLetterCount();

        broker.send(QUEUE, List.of(Outgoing.text("31", Messages.odds("j-held", Messages.external("31", 63001)))));

        // several attempts while the partner fails, and the message stays on the broker, in delivery, once
        await().atMost(Duration.ofSeconds(15)).until(() -> attemptsOf("j-held") >= 4);
        assertThat(queue.getMessageCount()).isEqualTo(1);
        assertThat(queue.getDeliveringCount()).isEqualTo(1);
        assertThat(queue.getMessagesAcknowledged()).isEqualTo(acknowledgedBefore);
        assertThat(queue.getMessagesKilled()).isZero();

        partner.server().removeStub(failing);

        await().atMost(Duration.ofSeconds(40)).until(() -> queue.getMessagesAcknowledged() == acknowledgedBefore + 1);
        assertThat(queue.getMessageCount()).isZero();
        assertThat(queue.getMessagesKilled()).isZero();
        assertThat(service.deadLetterCount()).isEqualTo(deadLettersBefore);
        int attempts = attemptsOf("j-held");
        // committed once, not redelivered by the broker: no further attempt after the one that got through
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3)).until(() -> attemptsOf("j-held") == attempts);
    }

    @Test
    void aMatchInRetryHoldsBackOnlyItsOwnMessagesAndIsRedeliveredAfterAStopUntilDelivered() throws Exception {
        String queueName = "liveodds.stuck";
        long stuckMatch = 64001;
        StubMapping failing = partner.server().stubFor(post(urlPathEqualTo("/partner/v1/liveodds/42/match:" + stuckMatch + "/odds"))
                .atPriority(1).willReturn(aResponse().withStatus(503)));
        List<Long> healthyMatches = java.util.stream.LongStream.rangeClosed(stuckMatch + 1, stuckMatch + 4).boxed().toList();
        int healthy = 40;
        try (RunningService first = jmsService(broker, partner, queueName)) {
            Queue queue = await().atMost(Duration.ofSeconds(30)).until(() -> broker.queue(queueName), q -> q != null);
            List<Outgoing> stream = new ArrayList<>();
            stream.add(Outgoing.text("41", Messages.odds("j-stuck-1", Messages.external("41", stuckMatch))));
            stream.add(Outgoing.text("41", Messages.odds("j-stuck-2", Messages.external("41", stuckMatch))));
            for (int i = 0; i < healthy; i++) {
                long match = healthyMatches.get(i % healthyMatches.size());
                stream.add(Outgoing.text(Long.toString(match), Messages.odds("j-ok-" + i, Messages.external(Long.toString(match), match))));
            }
            broker.send(queueName, stream);

            // every message of the other matches goes out and is acknowledged while the first one is still failing
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.getMessagesAcknowledged() == healthy);
            assertThat(partner.pushes().stream().map(r -> r.getHeader("Idempotency-Key"))
                    .filter(k -> k != null && k.startsWith("j-ok-")).count())
                    .isEqualTo(healthy);
            await().atMost(Duration.ofSeconds(15)).until(() -> attemptsOf("j-stuck-1") >= 2);
            assertThat(attemptsOf("j-stuck-2")).as("held behind its match's message in retry").isZero();
            assertThat(queue.getMessageCount()).isEqualTo(2);
            assertThat(queue.getMessagesAcknowledged()).isEqualTo(healthy);
            System.out.printf("JMS: %d messages of healthy matches delivered and acknowledged while j-stuck-1 failed %d times%n",
                    healthy, attemptsOf("j-stuck-1"));
        }
        // stopped mid-retry: both messages of the failing match are still on the broker, unacknowledged
        Queue queue = broker.queue(queueName);
        await().atMost(Duration.ofSeconds(30)).until(() -> queue.getMessageCount() == 2 && queue.getDeliveringCount() == 0);
        assertThat(queue.getMessagesAcknowledged()).isEqualTo(healthy);
        partner.server().removeStub(failing);

        try (RunningService second = jmsService(broker, partner, queueName)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> queue.getMessagesAcknowledged() == healthy + 2);
            List<String> order = partner.pushes("odds").stream().map(r -> r.getHeader("Idempotency-Key"))
                    .filter(k -> k != null && k.startsWith("j-stuck-")).toList();
            // j-stuck-2 was never tried before j-stuck-1 got through, not even while the first service was stopping
            assertThat(order.indexOf("j-stuck-2")).isEqualTo(order.size() - 1);
            assertThat(attemptsOf("j-stuck-2")).isEqualTo(1);
            assertThat(queue.getMessageCount()).isZero();
            assertThat(second.deadLetterCount()).isZero();
        }
    }

    @Test
    void readinessNamesTheSourceWhileTheBrokerIsDown() throws Exception {
        try (EmbeddedArtemis own = new EmbeddedArtemis().start();
             RunningService jms = jmsService(own, partner)) {
            await().atMost(Duration.ofSeconds(15)).until(() -> jms.management("/observe/health").statusCode() == 200);

            own.stop();
            await().atMost(Duration.ofSeconds(15)).until(() -> jms.management("/observe/health").statusCode() == 503);
            HttpResponse<String> down = jms.management("/observe/health");
            assertThat(down.body()).contains("\"name\":\"source\",\"status\":\"DOWN\"")
                    .contains("jms source cannot receive");
            assertThat(down.body()).doesNotContain("jms-s3cr3t");

            own.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> jms.management("/observe/health").statusCode() == 200);
        }
    }


    private static Queue waitForQueue() {
        return await().atMost(Duration.ofSeconds(30)).until(() -> broker.queue(QUEUE), q -> q != null);
    }

    private static LoggedRequest pushOf(String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).findFirst().orElse(null);
    }

    private static int attemptsOf(String messageId) {
        return (int) partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).count();
    }
}
