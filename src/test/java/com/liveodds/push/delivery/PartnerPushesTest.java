package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.queue.KeyedQueueConstants;
import com.liveodds.push.queue.RetryLater;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The steps of the push route alone, on exchanges as the route leaves them after the POST: what each answer makes of
 * the push (delivered, again after how long, dead-lettered) and what it counts.
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

    @Test
    void a5xxIsTriedAgainAfterTheRetryAfterAndCounted() {
        Exchange exchange = answered(push(), 503, "7");
        assertThatThrownBy(() -> pushes.retry(exchange)).isInstanceOfSatisfying(RetryLater.class,
                retry -> assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(7)));
        assertThat(registry.counter("liveodds.pushes.retried").count()).isEqualTo(1);
        assertThat(PushOutcome.of(exchange).outcome()).as("not ended").isNull();
    }

    @Test
    void aFirst401IsTriedAgainAtOnceAndASecondBacksOff() {
        Exchange exchange = answered(push(), 401, null);
        assertThatThrownBy(() -> pushes.retry(exchange)).isInstanceOfSatisfying(RetryLater.class,
                retry -> assertThat(retry.delay()).isZero());
        answered(exchange, 401, null);
        assertThatThrownBy(() -> pushes.retry(exchange)).isInstanceOfSatisfying(RetryLater.class,
                retry -> assertThat(retry.delay()).isPositive());
    }

    @Test
    void aRefusalIsDeadLetteredWithItsReasonAndASpentBudgetToo() {
        Exchange refused = answered(push(), 422, null);
        pushes.refused(refused);
        assertThat(PushOutcome.of(refused).deadLetterReason()).isEqualTo("HTTP 422 is not retryable");

        PartnerPushes noBudget = new PartnerPushes(new RetryPolicy(Duration.ofMillis(250), Duration.ofSeconds(30),
                Duration.ZERO), new LiveMatches(), new PartnerHealth());
        noBudget.setCamelContext(context);
        Exchange spent = push();
        noBudget.attempt(spent);
        spent.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 500);
        noBudget.answered(spent);
        noBudget.retry(spent);
        assertThat(PushOutcome.of(spent).deadLetterReason()).startsWith("retry budget of 0s used up after 1 attempts");
    }

    @Test
    void aPushSupersededOnTheWireIsNeitherRetriedNorDeadLettered() {
        Exchange exchange = push();
        exchange.setProperty(KeyedQueueConstants.SUPERSEDED_MARK, new AtomicBoolean(true));
        answered(exchange, 422, null);
        assertThatThrownBy(() -> pushes.refused(exchange)).isInstanceOfSatisfying(RetryLater.class,
                retry -> assertThat(retry.delay()).isZero());
        assertThat(PushOutcome.of(exchange).outcome()).isNull();
        assertThat(registry.find("liveodds.pushes.dead_lettered").counter()).isNull();
    }

    @Test
    void aDeliveredPushIsCountedWithItsLatency() {
        Exchange exchange = answered(push(), 202, null);
        pushes.delivered(exchange);
        assertThat(PushOutcome.of(exchange).isDelivered()).isTrue();
        assertThat(registry.counter("liveodds.pushes.delivered").count()).isEqualTo(1);
    }
}
