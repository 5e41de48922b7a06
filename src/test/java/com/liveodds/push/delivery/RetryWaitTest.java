package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RetryWait alone: the wait between two attempts, and everything that ends it early. */
class RetryWaitTest {

    private final CamelContext context = new DefaultCamelContext();
    private final ShutdownGate gate = new ShutdownGate();
    private final RetryWait wait = new RetryWait(gate);
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicBoolean withdrawn = new AtomicBoolean();

    @AfterEach
    void close() throws Exception {
        wait.stop();
        context.close();
    }

    private Exchange retryIn(long millis) {
        Exchange exchange = new DefaultExchange(context);
        DeliveryState state = new DeliveryState(new Push("m-1", "match:7", "odds", "{}", "{}", Instant.now()), Instant.now());
        state.attemptStarted();
        state.retryIn(millis, false);
        exchange.setVariable(DeliveryState.VARIABLE, state);
        exchange.setVariable(SourceHandover.VARIABLE, new SourceHandover() {
            @Override
            public boolean isWithdrawn() {
                return withdrawn.get();
            }

            @Override
            public void acknowledge() {
            }

            @Override
            public void handBack(String why) {
            }
        });
        return exchange;
    }

    private boolean waitFor(Exchange exchange) {
        return wait.process(exchange, doneSync -> calls.incrementAndGet());
    }

    private static DeliveryState state(Exchange exchange) {
        return exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
    }

    @Test
    void aBeanMadeButNeverStartedWaitsForNothing() {
        Exchange exchange = retryIn(50);
        assertThat(waitFor(exchange)).isTrue();
        assertThat(exchange.getException()).hasMessageContaining("not started");
    }

    @Test
    void thePushGoesOnAfterTheBackOffAndNotBefore() {
        wait.start();
        Exchange exchange = retryIn(300);
        assertThat(waitFor(exchange)).isFalse();
        await().atLeast(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 1);
        assertThat(state(exchange).isAgain()).isTrue();
    }

    @Test
    void nothingToWaitForGoesOnAtOnce() {
        wait.start();
        Exchange exchange = retryIn(0);
        assertThat(waitFor(exchange)).isTrue();
        assertThat(calls).hasValue(1);
    }

    @Test
    void theServiceStoppingHandsTheWaitingPushBackAtOnce() {
        wait.start();
        Exchange exchange = retryIn(60_000);
        waitFor(exchange);
        gate.close();
        await().atMost(Duration.ofSeconds(2)).until(() -> calls.get() == 1);
        assertThat(state(exchange).getOutcome()).isEqualTo("handed_back");
        assertThat(state(exchange).getReason()).isEqualTo("the service is stopping");
        assertThat(exchange.getVariable(DeliveryState.AGAIN, Boolean.class)).isFalse();
    }

    @Test
    void aMessageItsSourceWithdrawsLeavesTheWaitWithinItsCheck() {
        wait.start();
        Exchange exchange = retryIn(60_000);
        waitFor(exchange);
        withdrawn.set(true);
        await().atMost(Duration.ofSeconds(2)).until(() -> calls.get() == 1);
        assertThat(state(exchange).getReason()).isEqualTo("withdrawn by its source");
    }

    @Test
    void aSupersededPushLeavesItsWaitAtOnceAndOnlyIt() {
        wait.start();
        Exchange exchange = retryIn(60_000);
        Exchange other = retryIn(60_000);
        waitFor(exchange);
        waitFor(other);
        state(exchange).supersede();
        await().atMost(Duration.ofSeconds(2)).until(() -> calls.get() == 1);
        assertThat(state(exchange).getOutcome()).isEqualTo("superseded");
        assertThat(state(other).isAgain()).isTrue();
    }

    @Test
    void stoppingTheBeanHandsBackWhatWaitsAndTakesNoMore() {
        wait.start();
        Exchange exchange = retryIn(60_000);
        waitFor(exchange);
        wait.stop();
        await().atMost(Duration.ofSeconds(2)).until(() -> calls.get() == 1);
        assertThat(state(exchange).getOutcome()).isEqualTo("handed_back");
        Exchange later = retryIn(50);
        assertThat(waitFor(later)).isTrue();
        assertThat(later.getException()).hasMessageContaining("not started");
    }
}
