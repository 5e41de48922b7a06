package com.liveodds.push.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Predicate;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.SynchronizationAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The keyed queue alone, in a plain CamelContext whose consuming route is a stand-in: a body named in {@link #held}
 * completes its run only when the test releases it, one named in {@link #retries} asks to run again that many times.
 */
class KeyedQueueComponentTest {

    private static final String AHEAD = "liveoddsQueue:ahead";
    private final List<String> runs = new CopyOnWriteArrayList<>();
    /** How each exchange ended for its source: "acked" or "back: why", by body. */
    private final Map<String, String> ends = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<Void>> held = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> retries = new ConcurrentHashMap<>();
    private final Map<String, Duration> retryDelay = new ConcurrentHashMap<>();
    private final Map<String, Boolean> withdrawn = new ConcurrentHashMap<>();
    private final Map<String, Error> errors = new ConcurrentHashMap<>();
    private CamelContext context;
    private ProducerTemplate template;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.getRegistry().bind("liveoddsQueue", new KeyedQueueComponent());
        context.getRegistry().bind("withdrawn", (Predicate) e -> withdrawn.containsKey(e.getMessage().getBody(String.class)));
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                // as the push route does: a failure to reach the partner goes on to the verdict, which asks for a retry
                from("liveoddsQueue:flaky").routeId("flaky")
                        .onException(java.io.IOException.class).continued(true).end()
                        .process(e -> {
                            runs.add("flaky");
                            if (runs.size() < 3) {
                                throw new java.io.IOException("connection reset");
                            }
                        })
                        .process(e -> {
                            if (e.getProperty(org.apache.camel.ExchangePropertyKey.EXCEPTION_CAUGHT) != null) {
                                e.getMessage().setHeader(KeyedQueueConstants.RETRY_AFTER, Duration.ZERO);
                            }
                        });
                from("liveoddsQueue:heavy?maxInFlight=4&maxBytes=100").routeId("heavy")
                        .process(e -> run(e));
                from("liveoddsQueue:ahead?maxInFlight=4&size=20&readAhead=3&supersede=true").routeId("ahead")
                        .process(e -> run(e));
                from("liveoddsQueue:q?maxInFlight=4&size=8&supersede=true&handBackWhen=#bean:withdrawn")
                        .routeId("consumer")
                        .process(e -> run(e));
            }
        });
        context.start();
        template = context.createProducerTemplate();
    }

    @AfterEach
    void stop() {
        held.values().forEach(f -> f.complete(null));
        context.stop();
    }

    private void run(Exchange exchange) throws Exception {
        String body = exchange.getMessage().getBody(String.class);
        runs.add(body);
        Error error = errors.remove(body);
        if (error != null) {
            throw error;
        }
        CompletableFuture<Void> hold = held.get(body);
        if (hold != null) {
            hold.get();
        }
        AtomicInteger left = retries.get(body);
        if (left != null && left.getAndDecrement() > 0) {
            exchange.getMessage().setHeader(KeyedQueueConstants.RETRY_AFTER, retryDelay.getOrDefault(body, Duration.ZERO));
        }
    }

    /** Sends InOnly as a source does: its completion tells how the message ended for it. */
    private void send(String key, String body, boolean supersedes, boolean supersedable) {
        send("liveoddsQueue:q", key, body, supersedes, supersedable);
    }

    private void send(String uri, String key, String body, boolean supersedes, boolean supersedable) {
        send(uri, key, body, supersedes, supersedable, null);
    }

    /** Sends before what waits behind the hold of its key. */
    private void sendBefore(KeyHold hold, String body, boolean supersedes, boolean supersedable) {
        send("liveoddsQueue:q", (String) hold.key(), body, supersedes, supersedable, hold);
    }

    private void send(String uri, String key, String body, boolean supersedes, boolean supersedable, KeyHold before) {
        Exchange exchange = context.getEndpoint(uri).createExchange(ExchangePattern.InOnly);
        exchange.getMessage().setHeader(KeyedQueueConstants.BEFORE, before);
        exchange.getMessage().setBody(body);
        exchange.getMessage().setHeader(KeyedQueueConstants.KEY, key);
        exchange.getMessage().setHeader(KeyedQueueConstants.SUPERSEDES, supersedes);
        exchange.getMessage().setHeader(KeyedQueueConstants.SUPERSEDABLE, supersedable);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onComplete(Exchange done) {
                ends.put(body, Boolean.TRUE.equals(done.getProperty(KeyedQueueConstants.SUPERSEDED)) ? "superseded" : "acked");
            }

            @Override
            public void onFailure(Exchange failed) {
                ends.put(body, "back: " + failed.getException().getMessage());
            }
        });
        template.send(uri, exchange);
        if (exchange.getException() != null) {
            throw new IllegalStateException(exchange.getException());
        }
    }

    private void send(String key, String body) {
        send(key, body, false, false);
    }

    private CompletableFuture<Void> hold(String body) {
        return held.computeIfAbsent(body, b -> new CompletableFuture<>());
    }

    @Test
    void aKeyKeepsItsOrderWhileTheOtherKeysGoOn() {
        hold("a1");
        send("a", "a1");
        send("a", "a2");
        send("b", "b1");
        send("b", "b2");

        await().until(() -> ends.containsKey("b2"));
        assertThat(runs).containsSubsequence("b1", "b2").doesNotContain("a2");
        assertThat(ends).doesNotContainKeys("a1", "a2");

        held.get("a1").complete(null);
        await().until(() -> ends.containsKey("a2"));
        assertThat(runs).containsSubsequence("a1", "a2");
        assertThat(ends).containsEntry("a1", "acked").containsEntry("a2", "acked");
    }

    @Test
    void aRetryRunsAgainAtTheHeadOfItsKeyAndItsSourceHearsOnlyTheEnd() {
        retries.put("a1", new AtomicInteger(2));
        retryDelay.put("a1", Duration.ofMillis(50));
        send("a", "a1");
        send("a", "a2");

        await().until(() -> ends.containsKey("a2"));
        assertThat(runs).containsExactly("a1", "a1", "a1", "a2");
        assertThat(ends).containsEntry("a1", "acked").containsEntry("a2", "acked");
    }

    @Test
    void theRouteHandlesTheFailureOfEachRunAsItsFirst() {
        send("liveoddsQueue:flaky", "a", "f1", false, false);
        await().until(() -> ends.containsKey("f1"));
        assertThat(ends).containsEntry("f1", "acked");
        assertThat(runs).containsExactly("flaky", "flaky", "flaky");
    }

    @Test
    void aFailureGoesBackToItsSourceWithTheExchangesQueuedBehindIt() {
        hold("a1");
        send("a", "a1");
        send("a", "a2");
        send("a", "a3");
        await().until(() -> runs.contains("a1"));
        held.get("a1").completeExceptionally(new IllegalStateException("partner exploded"));

        await().until(() -> ends.containsKey("a3"));
        assertThat(ends.get("a1")).startsWith("back: ").contains("partner exploded");
        assertThat(ends.get("a2")).isEqualTo("back: an earlier message of its key was handed back to its source");
        assertThat(ends.get("a3")).isEqualTo(ends.get("a2"));
        assertThat(runs).containsExactly("a1");

        send("a", "a4");
        await().until(() -> "acked".equals(ends.get("a4")));
    }

    @Test
    void anErrorOnTheQueuesThreadEndsTheRunAndTheKeyGoesOn() {
        errors.put("a1", new OutOfMemoryError("test"));
        send("a", "a1");
        await().until(() -> ends.containsKey("a1"));
        assertThat(ends.get("a1")).startsWith("back: ");
        assertThat(((KeyedQueueEndpoint) context.getEndpoint("liveoddsQueue:q")).getFatalError())
                .isInstanceOf(OutOfMemoryError.class);

        send("a", "a2");
        await().until(() -> "acked".equals(ends.get("a2")));
    }

    @Test
    void aSnapshotSupersedesTheQueuedOddsButNotTheOthers() {
        hold("a1");
        send("a", "a1", false, true);
        await().until(() -> runs.contains("a1"));
        send("a", "delta", false, true);
        send("a", "settlement", false, false);
        send("a", "snapshot", true, true);

        await().until(() -> ends.containsKey("delta"));
        assertThat(ends).containsEntry("delta", "superseded");
        held.get("a1").complete(null);
        await().until(() -> ends.containsKey("snapshot"));
        // the one on the wire finished its run and counts as what it was: done
        assertThat(ends).containsEntry("a1", "acked").containsEntry("settlement", "acked").containsEntry("snapshot", "acked");
        assertThat(runs).containsExactly("a1", "settlement", "snapshot");
    }

    private KeyHold holdKey(String key) {
        return context.getEndpoint("liveoddsQueue:q", KeyedQueueEndpoint.class).hold(key);
    }

    @Test
    void whatIsSentWithAHoldRunsBeforeWhatCameAfterTheHoldAndTheOtherKeysGoOn() {
        hold("a1");
        send("a", "a1");
        KeyHold recovery = holdKey("a");
        send("a", "live");
        sendBefore(recovery, "old1", false, false);
        send("b", "b1");
        sendBefore(recovery, "old2", false, false);
        held.get("a1").complete(null);

        await().until(() -> ends.containsKey("old2") && ends.containsKey("b1"));
        // behind the hold until it is closed, however long that takes
        await().during(Duration.ofMillis(200)).until(() -> !runs.contains("live"));
        recovery.close();
        await().until(() -> "acked".equals(ends.get("live")));
        assertThat(runs).containsSubsequence("a1", "old1", "old2", "live");
        assertThat(holdKey("a")).as("the key can be held again").isNotNull();
    }

    @Test
    void aSnapshotBehindAHoldSupersedesTheOddsBeforeItButOneBeforeTheHoldNotThoseBehind() {
        hold("a0");
        send("a", "a0");
        KeyHold recovery = holdKey("a");
        send("a", "liveDelta", false, true);
        sendBefore(recovery, "oldSnapshot", true, true);
        assertThat(ends).doesNotContainKey("liveDelta");
        sendBefore(recovery, "oldDelta", false, true);
        send("a", "liveSnapshot", true, true);
        assertThat(ends).containsEntry("oldSnapshot", "superseded").containsEntry("oldDelta", "superseded")
                .containsEntry("liveDelta", "superseded");
        held.get("a0").complete(null);
        recovery.close();
        await().until(() -> ends.containsKey("liveSnapshot"));
        assertThat(runs).containsExactly("a0", "liveSnapshot");
    }

    @Test
    void stoppingHandsBackWhatWaitsBehindAHoldAndAClosedHoldTakesNothingMore() {
        KeyHold recovery = holdKey("a");
        send("a", "live");
        recovery.close();
        await().until(() -> "acked".equals(ends.get("live")));
        assertThatThrownBy(() -> sendBefore(recovery, "late", false, false)).hasMessageContaining("not an open hold");
        assertThat(ends.get("late")).startsWith("back: ");

        KeyHold again = holdKey("a");
        send("a", "waiting");
        context.stop();
        assertThat(ends).containsEntry("waiting", "back: the service is stopping");
        again.close();
        assertThat(runs).containsExactly("live");
    }

    @Test
    void aSnapshotEndsTheRetryDelayOfTheOddsBeforeIt() {
        retries.put("a1", new AtomicInteger(1));
        retryDelay.put("a1", Duration.ofHours(1));
        send("a", "a1", false, true);
        await().until(() -> runs.contains("a1"));

        send("a", "snapshot", true, true);
        await().until(() -> ends.containsKey("snapshot"));
        assertThat(ends).containsEntry("a1", "superseded");
        assertThat(runs).containsExactly("a1", "snapshot");
    }

    @Test
    void aWithdrawalDuringTheRetryDelayHandsItBackAtOnce() {
        retries.put("a1", new AtomicInteger(1));
        retryDelay.put("a1", Duration.ofHours(1));
        send("a", "a1");
        send("a", "a2");
        await().until(() -> runs.contains("a1"));

        withdrawn.put("a1", true);
        await().until(() -> ends.containsKey("a2"));
        assertThat(ends).containsEntry("a1", "back: withdrawn by its source");
        assertThat(ends.get("a2")).startsWith("back: ");
        assertThat(runs).containsExactly("a1");
    }

    @Test
    void stoppingHandsBackWhatWaitsAndWhatWaitsOutADelay() {
        retries.put("a1", new AtomicInteger(1));
        retryDelay.put("a1", Duration.ofHours(1));
        hold("b1");
        send("a", "a1");
        send("b", "b1");
        send("b", "b2");
        await().until(() -> runs.contains("a1") && runs.contains("b1"));

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(context::stop);
        await().until(() -> ends.containsKey("a1") && ends.containsKey("b2"));
        assertThat(ends).containsEntry("a1", "back: the service is stopping").containsEntry("b2", "back: the service is stopping");
        held.get("b1").complete(null);
        stopped.join();
        // the run on the wire finished as it would have
        assertThat(ends).containsEntry("b1", "acked");
        assertThat(runs).doesNotContain("b2");
    }

    @Test
    void aFullQueueRefusesAProducerThatWillNotWait() {
        for (int i = 0; i < 8; i++) {
            hold("a" + i);
            send("a", "a" + i);
        }
        Exchange refused = template.send("liveoddsQueue:q?blockWhenFull=false", e -> {
            e.getMessage().setBody("b1");
            e.getMessage().setHeader(KeyedQueueConstants.KEY, "b");
        });
        assertThat(refused.getException()).isInstanceOf(QueueFull.class);

        held.get("a0").complete(null);
        await().until(() -> ends.containsKey("a0"));
        send("liveoddsQueue:q?blockWhenFull=false", "b", "b1", false, false);
        await().until(() -> "acked".equals(ends.get("b1")));
    }

    @Test
    void theBytesHeldAreBoundedByMaxBytes() {
        hold("h1");
        sendWeighing("h1", 60, "liveoddsQueue:heavy");
        // 60 + 60 is over 100: a producer that will not wait is refused, one that fits is let in
        assertThat(sendWeighing("h2", 60, "liveoddsQueue:heavy?blockWhenFull=false").getException()).isInstanceOf(QueueFull.class);
        sendWeighing("h3", 30, "liveoddsQueue:heavy?blockWhenFull=false");
        await().until(() -> "acked".equals(ends.get("h3")));
        // a single exchange heavier than the bound still goes in alone once the queue is empty
        held.get("h1").complete(null);
        await().until(() -> "acked".equals(ends.get("h1")));
        sendWeighing("h4", 500, "liveoddsQueue:heavy?blockWhenFull=false");
        await().until(() -> "acked".equals(ends.get("h4")));
    }

    private Exchange sendWeighing(String body, long weight, String uri) {
        Exchange exchange = context.getEndpoint(uri).createExchange(ExchangePattern.InOnly);
        exchange.getMessage().setBody(body);
        exchange.getMessage().setHeader(KeyedQueueConstants.KEY, body);
        exchange.getMessage().setHeader(KeyedQueueConstants.WEIGHT, weight);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onComplete(Exchange done) {
                ends.put(body, "acked");
            }
        });
        return template.send(uri, exchange);
    }

    /**
     * readAhead: a source with a backlog of its own waits while that many of its exchanges can go, so the backlog stays
     * with it (a broker) rather than in the heap; a producer that will not wait has size alone for its bound.
     */
    @Test
    void aWaitingProducerWaitsWhileReadAheadExchangesCanGo() {
        hold("a1");
        send(AHEAD, "a", "a1", false, false);
        send(AHEAD, "a", "a2", false, false);
        hold("b1");
        send(AHEAD, "b", "b1", false, false);

        CompletableFuture<Void> c1 = CompletableFuture.runAsync(() -> send(AHEAD, "c", "c1", false, false));
        await().during(Duration.ofMillis(300)).until(() -> !c1.isDone());
        send(AHEAD + "?blockWhenFull=false", "d", "d1", false, false);
        await().until(() -> "acked".equals(ends.get("d1")));

        held.get("a1").complete(null);
        await().until(c1::isDone);
        await().until(() -> "acked".equals(ends.get("c1")));
        assertThat(runs).containsSubsequence("a1", "a2");
    }

    /** What waits out a retry delay, and what is queued behind it on its key, cannot go: it leaves room to read ahead. */
    @Test
    void exchangesOfAKeyInItsRetryDelayDoNotCountAgainstReadAhead() {
        retries.put("r1", new AtomicInteger(1));
        retryDelay.put("r1", Duration.ofMinutes(1));
        send(AHEAD, "r", "r1", false, false);
        send(AHEAD, "r", "r2", false, false);
        send(AHEAD, "r", "r3", false, false);

        CompletableFuture<Void> ahead = CompletableFuture.runAsync(() -> {
            for (int i = 1; i <= 3; i++) {
                hold("d" + i);
                send(AHEAD, "d" + i, "d" + i, false, false);
            }
        });
        await().until(ahead::isDone);
        CompletableFuture<Void> e1 = CompletableFuture.runAsync(() -> send(AHEAD, "e", "e1", false, false));
        await().during(Duration.ofMillis(300)).until(() -> !e1.isDone());
        held.get("d1").complete(null);
        await().until(e1::isDone);
        assertThat(runs).doesNotContain("r2");
    }

    /** A snapshot for a match in retry, with readAhead odds behind it, goes in: what it supersedes is no longer held. */
    @Test
    void aSnapshotForAKeyInRetryGoesInPastReadAheadOfTheOddsItSupersedes() {
        retries.put("r1", new AtomicInteger(1));
        retryDelay.put("r1", Duration.ofMinutes(1));
        send(AHEAD, "r", "r1", false, true);
        await().until(() -> runs.contains("r1"));
        for (int i = 2; i <= 4; i++) {
            send(AHEAD, "r", "r" + i, false, true);
        }

        CompletableFuture<Void> snapshot = CompletableFuture.runAsync(() -> send(AHEAD, "r", "s1", true, false));
        await().until(snapshot::isDone);
        await().until(() -> "acked".equals(ends.get("s1")));
        assertThat(ends).containsEntry("r2", "superseded").containsEntry("r4", "superseded");
    }

    /** Live exchanges behind a recovery's hold cannot go until it closes: neither they nor the recovery wait on readAhead. */
    @Test
    void whatWaitsBehindAHoldDoesNotCountAgainstReadAheadAndTheHoldersExchangesNeverWait() {
        KeyHold recovery = context.getEndpoint(AHEAD, KeyedQueueEndpoint.class).hold("h");
        CompletableFuture<Void> both = CompletableFuture.runAsync(() -> {
            for (int i = 1; i <= 4; i++) {
                send(AHEAD, "h", "live" + i, false, false);
            }
            for (int i = 1; i <= 4; i++) {
                send(AHEAD, "h", "old" + i, false, false, recovery);
            }
        });
        await().until(both::isDone);
        recovery.close();

        await().until(() -> ends.size() == 8);
        assertThat(ends.values()).containsOnly("acked");
        assertThat(runs).containsExactly("old1", "old2", "old3", "old4", "live1", "live2", "live3", "live4");
    }

    @Test
    void anInOutCallerGetsTheResultOfItsRun() {
        Object answer = template.requestBodyAndHeader("liveoddsQueue:q", "c1", KeyedQueueConstants.KEY, "c");
        assertThat(answer).isEqualTo("c1");
        assertThat(runs).containsExactly("c1");
    }

    @Test
    void noMoreKeysRunAtOnceThanMaxInFlight() {
        for (int i = 0; i < 6; i++) {
            hold("k" + i);
            send("k" + i, "k" + i);
        }
        await().until(() -> runs.size() == 4);
        await().during(Duration.ofMillis(300)).until(() -> runs.size() == 4);
        held.values().forEach(f -> f.complete(null));
        await().until(() -> ends.size() == 6);
        assertThat(ends.values()).containsOnly("acked");
    }
}
