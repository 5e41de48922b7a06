package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.Meters;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.SynchronizationAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The supersede rule of the per-match queues alone (contract 17), in a plain CamelContext: the push route loops a
 * stand-in attempt and the real {@link RetryWait}, as routes/delivery.yaml does. A failing push waits a minute
 * before its next attempt, so anything that ends sooner was ended by a snapshot.
 */
class MatchQueuesSupersedeTest {

    private static final long BACK_OFF_MILLIS = 60_000;

    private final LiveMatches liveMatches = new LiveMatches();
    private final ShutdownGate gate = new ShutdownGate();
    private final MatchQueues queues = new MatchQueues(liveMatches, gate);
    private final RetryWait retryWait = new RetryWait(gate);
    private final List<String> pushed = new CopyOnWriteArrayList<>();
    private final List<String> attempts = new CopyOnWriteArrayList<>();
    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    /** Per message: "acknowledged" or "handed back", as its InOnly source learns it. */
    private final Map<String, String> sourceHeard = new ConcurrentHashMap<>();
    private CamelContext context;
    private ProducerTemplate template;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        gate.setCamelContext(context);
        gate.start();
        queues.setCamelContext(context);
        context.getRegistry().bind("queues", queues);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:liveodds-push")
                        .loopDoWhile(simple("${variable.again} != false"))
                            .process(new StandInAttempt())
                            .process(retryWait)
                        .end()
                        .filter(simple("${variable.outcome} == 'handed_back'"))
                            .throwException(new DeliveryInterruptedException("handed back"));
                from("direct:accept").process("queues");
            }
        });
        context.start();
        template = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        gate.close();
        context.stop();
        retryWait.stop();
        queues.stop();
        gate.stop();
    }

    @Test
    void aSnapshotEndsTheBackOffOfTheEarlierPushAndTakesTheQueuedOddsOutButNoSettlement() {
        inBackOff("m1", "d1", "delta");
        send("m1", "d2", "delta");
        send("m1", "s1", "market_settlement");
        send("m1", "d3", "deactivation");
        send("m1", "r1", "rollback_settlement");
        send("m1", "d4", "snapshot");
        send("m1", "d5", "delta");
        send("m2", "x1", "delta");
        send("m2", "x2", "snapshot");

        await().atMost(Duration.ofSeconds(5)).until(() -> sourceHeard.size() == 9);
        assertThat(sourceHeard).as("superseded ones are acknowledged like delivered ones").containsOnlyKeys(
                "d1", "d2", "s1", "d3", "r1", "d4", "d5", "x1", "x2").allSatisfy((id, heard) -> assertThat(heard).isEqualTo("acknowledged"));
        assertThat(pushed).containsExactlyInAnyOrder("s1", "r1", "d4", "d5", "x1", "x2")
                .containsSubsequence("s1", "r1", "d4", "d5").containsSubsequence("x1", "x2");
        assertThat(attempts).as("d1 was not tried again after its back-off").containsOnlyOnce("d1").doesNotContain("d2", "d3");
        assertThat(superseded()).isEqualTo(3);
        assertThat(liveMatches.backlog()).isZero();
        assertThat(queues.oldestUndelivered()).isNull();
    }

    @Test
    void aFullQueueOfOddsLetsTheSnapshotInByFreeingTheirPlaces() {
        queues.setQueueSize(3);
        inBackOff("m3", "d1", "delta");
        send("m3", "d2", "delta");
        send("m3", "d3", "delta");
        // the queue is full: without freeing the superseded places first, the snapshot would wait for ever
        CompletableFuture<Void> snapshot = CompletableFuture.runAsync(() -> send("m3", "d4", "snapshot"));
        await().atMost(Duration.ofSeconds(5)).until(() -> pushed.contains("d4"));
        assertThat(snapshot).succeedsWithin(Duration.ofSeconds(1));
        assertThat(pushed).containsExactly("d4");
        assertThat(superseded()).isEqualTo(3);
        send("m3", "d5", "delta");
        send("m3", "d6", "delta");
        send("m3", "d7", "delta");
        await().atMost(Duration.ofSeconds(5)).until(() -> pushed.size() == 4 && liveMatches.backlog() == 0);
    }

    @Test
    void withoutASnapshotOrWithTheRuleOffNothingIsSuperseded() {
        queues.setSupersede(false);
        inBackOff("m4", "d1", "delta");
        send("m4", "d2", "snapshot");
        send("m5", "e1", "delta");
        send("m5", "e2", "deactivation");
        await().atMost(Duration.ofSeconds(5)).until(() -> pushed.size() == 2);
        assertThat(pushed).containsExactly("e1", "e2");
        assertThat(sourceHeard).doesNotContainKeys("d1", "d2");
        assertThat(liveMatches.backlog()).as("d1 in retry, d2 behind it").isEqualTo(2);
        assertThat(superseded()).isZero();
    }

    @Test
    void aPushHandedBackAtShutdownAfterASupersedeStillTakesTheRestBackWithIt() {
        inBackOff("m6", "s1", "market_settlement");
        send("m6", "d1", "delta");
        send("m6", "d2", "snapshot");
        send("m6", "s2", "market_settlement");
        await().atMost(Duration.ofSeconds(5)).until(() -> "acknowledged".equals(sourceHeard.get("d1")));
        gate.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> sourceHeard.size() == 4);
        assertThat(sourceHeard).containsEntry("s1", "handed back").containsEntry("d2", "handed back")
                .containsEntry("s2", "handed back");
        assertThat(pushed).isEmpty();
    }

    /** The push fails and waits out its minute of back-off. */
    private void inBackOff(String matchId, String messageId, String kind) {
        failing.add(messageId);
        send(matchId, messageId, kind);
        await().atMost(Duration.ofSeconds(5)).until(() -> attempts.contains(messageId));
    }

    private double superseded() {
        var counter = Meters.registry(context).find("liveodds.messages.superseded").counter();
        return counter == null ? 0 : counter.count();
    }

    /** Hands a push over as the file, JMS and Kafka sources do (InOnly), noting what its source hears at the end. */
    private void send(String matchId, String messageId, String kind) {
        Exchange exchange = context.getEndpoint("direct:accept").createExchange(ExchangePattern.InOnly);
        String json = kind.contains("settlement") ? "{\"message_type\":\"" + kind + "\"}"
                : "{\"message_type\":\"odds\",\"fight_metadata\":{\"odds_type\":\"x\"},\"odds_type\":\"" + kind + "\"}";
        String type = kind.contains("settlement") ? kind : "odds";
        exchange.getMessage().setBody(new Push(messageId, matchId, type, json, json, Instant.now()));
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onComplete(Exchange done) {
                sourceHeard.put(messageId, "acknowledged");
            }

            @Override
            public void onFailure(Exchange failed) {
                sourceHeard.put(messageId, "handed back");
            }
        });
        template.send("direct:accept", exchange);
    }

    /** As {@link PushAttempt} judges: a push superseded or handed back makes no attempt; a failing one backs off. */
    private final class StandInAttempt extends AsyncProcessorSupport {
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            DeliveryState state = DeliveryState.of(exchange, Instant.now());
            String id = state.getPush().messageId();
            String handBack = exchange.getVariable(MatchQueues.HAND_BACK, String.class);
            if (handBack != null || gate.isStopping()) {
                state.end(DeliveryState.Outcome.HANDED_BACK, "handed back");
            } else if (state.isSuperseded()) {
                state.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON);
            } else {
                state.attemptStarted();
                attempts.add(id);
                if (failing.contains(id)) {
                    state.retryIn(BACK_OFF_MILLIS, false);
                } else {
                    pushed.add(id);
                    state.end(DeliveryState.Outcome.DELIVERED, null);
                }
            }
            state.publish(exchange);
            callback.done(true);
            return true;
        }
    }
}
