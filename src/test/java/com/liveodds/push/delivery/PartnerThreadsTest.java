package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.partner.PartnerThreads;
import com.liveodds.push.partner.PartnerTls;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.ExpressionAdapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Contract 10, nothing gets stuck, on the partner's threads (one of them, so that nothing else that runs on it can
 * rescue an exchange by chance): an Error in a step of the attempt hands the push back, and its match and the others
 * go on, whether Camel's step called back before the Error escaped it (a processor) or not (an expression).
 */
class PartnerThreadsTest {

    private final ShutdownGate gate = new ShutdownGate();
    private final LiveMatches liveMatches = new LiveMatches();
    private final MatchQueues queues = new MatchQueues(liveMatches, gate);
    private final List<String> pushed = new CopyOnWriteArrayList<>();
    private final CountDownLatch behindQueued = new CountDownLatch(1);
    private final ExecutorService threads = new PartnerHttp(new PartnerTls(), Duration.ofSeconds(10), 1).threads();
    private CamelContext context;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        // an exchange that an Error stranded (no step left to end it) is ended for its source, but Camel still counts
        // it in flight: the stop would wait its default 45 s for it
        context.getShutdownStrategy().setTimeout(1);
        gate.setCamelContext(context);
        gate.start();
        queues.setCamelContext(context);
        PartnerThreads partnerThreads = new PartnerThreads(threads);
        partnerThreads.setCamelContext(context);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:liveodds-push")
                        .process(partnerThreads)
                        // as the real attempt does: a push taken back with an earlier one fails without an attempt
                        .filter(exchange -> exchange.getVariable(MatchQueues.HAND_BACK) != null)
                            .throwException(new DeliveryInterruptedException("handed back"))
                        .end()
                        // the failing push waits until the one behind it is queued, so that it is taken back with it
                        .process(exchange -> {
                            if (id(exchange).endsWith("-error")) {
                                behindQueued.await(10, TimeUnit.SECONDS);
                            }
                        })
                        .process(exchange -> {
                            if (id(exchange).equals("processor-error")) {
                                throw new OutOfMemoryError("test: no heap left");
                            }
                        })
                        .setHeader("checked", new ExpressionAdapter() {
                            @Override
                            public Object evaluate(Exchange exchange) {
                                if (id(exchange).equals("expression-error")) {
                                    throw new StackOverflowError("test");
                                }
                                return true;
                            }
                        })
                        .process(exchange -> pushed.add(id(exchange)));
            }
        });
        context.start();
    }

    @AfterEach
    void stop() {
        context.stop();
        queues.stop();
        gate.stop();
        threads.shutdownNow();
    }

    @Test
    void anErrorInAProcessorHandsThePushBackAndTheWorkGoesOn() throws Exception {
        anErrorHandsThePushBackAndTheWorkGoesOn("processor-error", OutOfMemoryError.class);
    }

    @Test
    void anErrorInAnExpressionThatCallsNothingBackHandsThePushBackAndTheWorkGoesOn() throws Exception {
        anErrorHandsThePushBackAndTheWorkGoesOn("expression-error", StackOverflowError.class);
    }

    private void anErrorHandsThePushBackAndTheWorkGoesOn(String failing, Class<? extends Error> error) throws Exception {
        CompletableFuture<Exchange> boom = send("match:1", failing);
        CompletableFuture<Exchange> behind = send("match:1", "behind");
        behindQueued.countDown();
        assertThat(boom.get(10, TimeUnit.SECONDS).isFailed()).as("handed back to its source").isTrue();
        assertThat(behind.get(10, TimeUnit.SECONDS).isFailed()).as("taken back with it, so it cannot overtake it").isTrue();
        assertThat(queues.fatalError()).as("liveness DOWN").isInstanceOf(error);

        assertThat(send("match:2", "other").get(10, TimeUnit.SECONDS).isFailed()).as("other matches go on").isFalse();
        assertThat(send("match:1", "later").get(10, TimeUnit.SECONDS).isFailed()).as("its match goes on").isFalse();
        assertThat(pushed).containsExactly("other", "later");
        assertThat(liveMatches.backlog()).isZero();
    }

    private CompletableFuture<Exchange> send(String matchId, String messageId) {
        Exchange exchange = context.getEndpoint("direct:liveodds-push").createExchange(ExchangePattern.InOut);
        exchange.getMessage().setBody(new Push(messageId, matchId, "odds", "{}", "{}", Instant.now()));
        CompletableFuture<Exchange> ended = new CompletableFuture<>();
        queues.process(exchange, doneSync -> ended.complete(exchange));
        return ended;
    }

    private static String id(Exchange exchange) {
        return exchange.getMessage().getBody(Push.class).messageId();
    }
}
