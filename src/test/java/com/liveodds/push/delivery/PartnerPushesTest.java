package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.queue.KeyedQueueConstants;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The steps of the push route alone, on exchanges as the route leaves them after the POST: the verdict on each answer
 * (plain Java, nothing thrown: delivered, renew the token, again after how long, superseded, held, dead-lettered), and
 * what each branch's step counts.
 */
class PartnerPushesTest {

    private final CamelContext context = new DefaultCamelContext();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PartnerPushes pushes = new PartnerPushes(
            new RetryPolicy(Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofMinutes(10)), new LiveMatches(),
            new PartnerHealth());

    PartnerPushesTest() {
        Meters meters = new Meters();
        meters.setRegistry(registry);
        pushes.setMeters(meters);
        pushes.setCamelContext(context);
    }

    @AfterEach
    void close() throws Exception {
        context.close();
    }

    private Exchange answered(Exchange exchange, int status, String retryAfter) {
        pushes.attempt(exchange);
        exchange.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        exchange.getMessage().setHeader("Retry-After", retryAfter);
        exchange.getMessage().setBody(new byte[0]);
        pushes.answered(exchange);
        return exchange;
    }

    private Exchange push() {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setBody(new Push("m-1", "match:1", "odds", "{}", "{}", Instant.now(), "delta"));
        return exchange;
    }

    private static String verdict(Exchange exchange) {
        return exchange.getVariable(PartnerPushes.VERDICT, String.class);
    }

    private static Duration retryIn(Exchange exchange) {
        return exchange.getVariable(PartnerPushes.RETRY_IN, Duration.class);
    }

    @Test
    void a5xxIsTriedAgainAfterTheRetryAfterAndCounted() {
        Exchange exchange = answered(push(), 503, "7");
        assertThat(verdict(exchange)).isEqualTo("retry");
        assertThat(retryIn(exchange)).isEqualTo(Duration.ofSeconds(7));
        pushes.retrying(exchange);
        assertThat(registry.counter("liveodds.pushes.retried").count()).isEqualTo(1);
        assertThat(PushOutcome.of(exchange).outcome()).as("not ended").isNull();
    }

    @Test
    void a401RenewsTheTokenAtOnceTheFirstTimeAndAfterTheBackOffThen() {
        Exchange exchange = answered(push(), 401, null);
        assertThat(verdict(exchange)).isEqualTo("renew-token");
        assertThat(retryIn(exchange)).isZero();
        pushes.retrying(exchange);
        answered(exchange, 401, null);
        assertThat(verdict(exchange)).isEqualTo("renew-token");
        assertThat(retryIn(exchange)).isPositive();
    }

    @Test
    void aRefusalIsDeadLetteredWithItsReasonAndASpentBudgetToo() {
        Exchange refused = answered(push(), 422, null);
        assertThat(verdict(refused)).isEqualTo("dead-letter");
        assertThat(retryIn(refused)).isNull();
        pushes.deadLettered(refused);
        assertThat(PushOutcome.of(refused).deadLetterReason()).isEqualTo("HTTP 422 is not retryable");
        assertThat(refused.getVariable(PartnerDeliveries.PARTNER, String.class)).as("whose dead letter it is").isEmpty();

        PartnerPushes noBudget = new PartnerPushes(new RetryPolicy(Duration.ofMillis(250), Duration.ofSeconds(30),
                Duration.ZERO), new LiveMatches(), new PartnerHealth());
        noBudget.setCamelContext(context);
        Exchange spent = push();
        noBudget.attempt(spent);
        spent.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 500);
        noBudget.answered(spent);
        assertThat(verdict(spent)).isEqualTo("dead-letter");
        noBudget.deadLettered(spent);
        assertThat(PushOutcome.of(spent).deadLetterReason()).startsWith("retry budget of 0s used up after 1 attempts");
    }

    @Test
    void aPushSupersededOnTheWireIsNeitherRetriedNorDeadLettered() {
        Exchange exchange = push();
        exchange.setProperty(KeyedQueueConstants.SUPERSEDED_MARK, new AtomicBoolean(true));
        answered(exchange, 422, null);
        assertThat(verdict(exchange)).as("the queue, asked to run it again, ends it superseded").isEqualTo("superseded");
        assertThat(retryIn(exchange)).isZero();
        pushes.retrying(exchange);
        assertThat(PushOutcome.of(exchange).outcome()).isNull();
        assertThat(registry.find("liveodds.pushes.dead_lettered").counter()).isNull();
        assertThat(registry.find("liveodds.pushes.retried").counter()).isNull();
    }

    @Test
    void aPartnerDownDeadLettersAtOnceForACallerWithoutBacklogAndFullDeadLettersHoldThePushAndPauseThePartner() {
        PartnerHealth down = new PartnerHealth();
        down.setDownAfter(Duration.ofNanos(1));
        down.failed("connection refused");
        await().until(() -> !down.isUp());
        PartnerPushes pushesOfDown = new PartnerPushes(
                new RetryPolicy(Duration.ofMillis(250), Duration.ofSeconds(30), Duration.ofMinutes(10)), new LiveMatches(), down);
        pushesOfDown.setCamelContext(context);
        Exchange noBacklog = push();
        noBacklog.setVariable(PartnerPushes.DEAD_LETTER_WHEN_DOWN, true);
        pushesOfDown.attempt(noBacklog);
        noBacklog.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 503);
        pushesOfDown.answered(noBacklog);
        assertThat(verdict(noBacklog)).isEqualTo("dead-letter");
        pushesOfDown.deadLettered(noBacklog);
        assertThat(PushOutcome.of(noBacklog).deadLetterReason())
                .isEqualTo("HTTP 503; the partner is down (readiness) and the source keeps no backlog");

        List<String> paused = new ArrayList<>();
        pushes.setDeadLettersFull(() -> true);
        pushes.setPauseWhenFull(paused::add);
        Exchange refused = answered(push(), 422, null);
        assertThat(verdict(refused)).isEqualTo("held");
        assertThat(retryIn(refused)).isEqualTo(Duration.ofSeconds(30));
        assertThat(paused).as("judging pauses nothing").isEmpty();
        pushes.retrying(refused);
        assertThat(paused).containsExactly("dead letters full (liveodds.dead-letter.max-per-partner)");
        assertThat(PushOutcome.of(refused).outcome()).as("neither dropped nor acknowledged").isNull();
    }

    @Test
    void aDeliveredPushIsCountedWithItsLatency() {
        Exchange exchange = answered(push(), 202, null);
        pushes.delivered(exchange);
        assertThat(PushOutcome.of(exchange).isDelivered()).isTrue();
        assertThat(registry.counter("liveodds.pushes.delivered").count()).isEqualTo(1);
    }
}
