package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import com.liveodds.push.heartbeat.LiveMatches;
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
 * The per-match queues alone, in a plain CamelContext whose push route is a stand-in partner: a push of a held
 * message completes only when the test releases it.
 */
class MatchQueuesTest {

    private final LiveMatches liveMatches = new LiveMatches();
    private final ShutdownGate gate = new ShutdownGate();
    private final MatchQueues queues = new MatchQueues(liveMatches, gate);
    private final List<String> pushed = new CopyOnWriteArrayList<>();
    private final Map<String, CompletableFuture<Void>> held = new ConcurrentHashMap<>();
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
                from("direct:liveodds-push").process(new StandInPartner());
                from("direct:accept").process("queues");
            }
        });
        context.start();
        template = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        held.values().forEach(hold -> hold.complete(null));
        context.stop();
        queues.stop();
        gate.stop();
    }

    @Test
    void aMatchWaitingForItsPartnerDelaysNoOtherMatch() throws Exception {
        hold("a1");
        Future<Exchange> a1 = send("match:1", "a1");
        Future<Exchange> a2 = send("match:1", "a2");
        Future<Exchange> b1 = send("match:2", "b1");
        Future<Exchange> b2 = send("match:2", "b2");

        await().atMost(Duration.ofSeconds(5)).until(() -> b1.isDone() && b2.isDone());
        assertThat(pushed).containsSubsequence("b1", "b2").doesNotContain("a2");
        assertThat(a2).isNotDone();

        held.get("a1").complete(null);
        await().atMost(Duration.ofSeconds(5)).until(a2::isDone);
        assertThat(pushed.indexOf("a1")).isLessThan(pushed.indexOf("a2"));
        assertThat(a1.get().isFailed()).isFalse();
        assertThat(liveMatches.backlog()).isZero();
    }

    @Test
    void anErrorInAPushLeavesNoMatchStuckAndTurnsLivenessDown() throws Exception {
        hold("boom");
        Future<Exchange> boom = send("match:3", "boom");
        Future<Exchange> queuedBehind = send("match:3", "behind");
        held.get("boom").completeExceptionally(new OutOfMemoryError("test: no heap left"));

        assertThat(boom.get().isFailed()).as("handed back to its source").isTrue();
        assertThat(queuedBehind.get().isFailed()).as("taken back with it, so it cannot overtake it").isTrue();
        assertThat(pushed).doesNotContain("behind");
        assertThat(queues.fatalError()).isInstanceOf(OutOfMemoryError.class);

        Exchange later = send("match:3", "later").get();
        assertThat(later.isFailed()).as("the match goes on").isFalse();
        assertThat(pushed).contains("later");
        assertThat(liveMatches.backlog()).isZero();
    }

    @Test
    void anInOnlySourceIsFreedAtOnceAndAcknowledgesWhenThePushEnds() throws Exception {
        hold("c1");
        AtomicBoolean acknowledged = new AtomicBoolean();
        Exchange exchange = context.getEndpoint("direct:accept").createExchange(ExchangePattern.InOnly);
        exchange.getMessage().setBody(push("match:4", "c1"));
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onComplete(Exchange done) {
                acknowledged.set(true);
            }
        });
        template.send("direct:accept", exchange);
        assertThat(acknowledged).as("not before the push ends").isFalse();
        held.get("c1").complete(null);
        await().atMost(Duration.ofSeconds(5)).untilTrue(acknowledged);
    }

    @Test
    void aFullQueueMakesTheSourceWaitAndTheShutdownHandsEverythingBack() throws Exception {
        queues.setQueueSize(2);
        hold("d1");
        send("match:5", "d1");
        Future<Exchange> d2 = send("match:5", "d2");
        CompletableFuture<Exchange> third = CompletableFuture.supplyAsync(() -> {
            try {
                return send("match:6", "e1").get();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> true);
        assertThat(third).as("no room: the source waits").isNotDone();

        gate.close();
        assertThat(third.get().isFailed()).as("left with its source at shutdown").isTrue();
        assertThat(d2.get().isFailed()).as("a queued push goes back to its source at shutdown").isTrue();
        assertThat(pushed).doesNotContain("d2", "e1");
    }

    private void hold(String messageId) {
        held.put(messageId, new CompletableFuture<>());
    }

    /** Hands a push over as the HTTP source does (InOut): accepted before this returns, answered when it ends. */
    private Future<Exchange> send(String matchId, String messageId) {
        Exchange exchange = context.getEndpoint("direct:accept").createExchange(ExchangePattern.InOut);
        exchange.getMessage().setBody(push(matchId, messageId));
        CompletableFuture<Exchange> ended = new CompletableFuture<>();
        queues.process(exchange, doneSync -> ended.complete(exchange));
        return ended;
    }

    private static Push push(String matchId, String messageId) {
        return new Push(messageId, matchId, "odds", "{}", "{}", Instant.now());
    }

    /** Answers each push at once, or when the test completes its hold (asynchronously, like the partner client). */
    private final class StandInPartner extends AsyncProcessorSupport {
        @Override
        public boolean process(Exchange exchange, AsyncCallback callback) {
            String id = exchange.getMessage().getBody(Push.class).messageId();
            String handBack = exchange.getVariable(MatchQueues.HAND_BACK, String.class);
            if (handBack != null) {
                // as the real push route does: no attempt, the exchange fails so the source keeps the message
                exchange.setException(new DeliveryInterruptedException(handBack));
                callback.done(true);
                return true;
            }
            CompletableFuture<Void> hold = held.get(id);
            if (hold == null) {
                pushed.add(id);
                callback.done(true);
                return true;
            }
            hold.whenComplete((ok, error) -> {
                if (error != null) {
                    exchange.setException(error);
                } else {
                    pushed.add(id);
                }
                callback.done(false);
            });
            return false;
        }
    }
}
