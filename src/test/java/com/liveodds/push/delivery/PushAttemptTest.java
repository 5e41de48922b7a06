package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;

import com.liveodds.push.heartbeat.LiveMatches;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** PushAttempt alone: what goes out in an attempt, and what goes back to its source untried. */
class PushAttemptTest {

    private final CamelContext context = new DefaultCamelContext();
    private final LiveMatches liveMatches = new LiveMatches();
    private final ShutdownGate gate = new ShutdownGate();
    private final PushAttempt attempt = new PushAttempt(liveMatches, gate);

    @AfterEach
    void close() throws Exception {
        context.close();
    }

    private Exchange push(String messageId) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setBody(new Push(messageId, "match:7", "odds", "{\"m\":\"" + messageId + "\"}", "{}", Instant.now()));
        return exchange;
    }

    private static DeliveryState state(Exchange exchange) {
        return exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
    }

    @Test
    void anAttemptCarriesTheExactBytesOfThePushAndIsCounted() {
        Exchange exchange = push("m-1");
        attempt.process(exchange);
        attempt.process(exchange);
        assertThat(exchange.getVariable(DeliveryState.AGAIN, Boolean.class)).isTrue();
        assertThat(exchange.getVariable("matchId")).isEqualTo("match:7");
        assertThat(exchange.getVariable("messageType")).isEqualTo("odds");
        assertThat(exchange.getVariable("messageId")).isEqualTo("m-1");
        assertThat(exchange.getVariable("pushBody", byte[].class)).asString().isEqualTo("{\"m\":\"m-1\"}");
        assertThat(state(exchange).getAttempts()).isEqualTo(2);
        assertThat(exchange.getVariable(DeliveryState.OUTCOME)).isNull();
    }

    @Test
    void oncetheServiceIsStoppingThePushGoesBackToItsSourceUntried() {
        gate.close();
        Exchange exchange = push("m-2");
        attempt.process(exchange);
        assertThat(exchange.getVariable(DeliveryState.AGAIN, Boolean.class)).isFalse();
        assertThat(exchange.getVariable(DeliveryState.OUTCOME)).isEqualTo("handed_back");
        assertThat(state(exchange).getReason()).isEqualTo("the service is stopping");
        assertThat(state(exchange).getAttempts()).isZero();
        assertThat(exchange.getVariable("pushBody")).isNull();
    }

    @Test
    void aMessageItsSourceWithdrewIsNotSent() {
        Exchange exchange = push("m-3");
        exchange.setVariable(SourceHandover.VARIABLE, new SourceHandover() {
            @Override
            public boolean isWithdrawn() {
                return true;
            }

            @Override
            public void acknowledge() {
            }

            @Override
            public void handBack(String why) {
            }
        });
        attempt.process(exchange);
        assertThat(exchange.getVariable(DeliveryState.OUTCOME)).isEqualTo("handed_back");
        assertThat(state(exchange).getReason()).isEqualTo("withdrawn by its source");
        assertThat(state(exchange).getAttempts()).isZero();
    }

    @Test
    void anEarlierMessageHandedBackTakesThisOneBackWithItsReason() {
        Exchange exchange = push("m-4");
        exchange.setVariable(MatchQueues.HAND_BACK, "an earlier message of its match was handed back to its source");
        attempt.process(exchange);
        assertThat(exchange.getVariable(DeliveryState.OUTCOME)).isEqualTo("handed_back");
        assertThat(state(exchange).getReason()).isEqualTo("an earlier message of its match was handed back to its source");
    }

    @Test
    void oddsSupersededByALaterSnapshotAreNeverSent() {
        Exchange exchange = push("m-5");
        attempt.process(exchange);
        state(exchange).supersede();
        attempt.process(exchange);
        assertThat(exchange.getVariable(DeliveryState.OUTCOME)).isEqualTo("superseded");
        assertThat(exchange.getVariable(DeliveryState.AGAIN, Boolean.class)).isFalse();
        assertThat(state(exchange).getAttempts()).isEqualTo(1);
    }
}
