package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.delivery.PartnerDeliveries;
import com.liveodds.push.delivery.Push;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One message read by three partners' sources is judged by one of them; the others take the verdict. */
class MessageVerdictsTest {

    private final CamelContext context = new DefaultCamelContext();
    private final MessageVerdicts verdicts = new MessageVerdicts();
    private final ExecutorService readers = Executors.newFixedThreadPool(3);

    MessageVerdictsTest() {
        verdicts.setPartners("a, b,c");
    }

    @AfterEach
    void stop() {
        readers.shutdownNow();
    }

    @Test
    void threePartnersReadingTheSameMessageAtOnceJudgeItOnce() throws Exception {
        CountDownLatch together = new CountDownLatch(3);
        List<Future<Exchange>> reads = new ArrayList<>();
        List<Exchange> judging = new ArrayList<>();
        for (String partner : List.of("a", "b", "c")) {
            reads.add(readers.submit(() -> {
                Exchange exchange = read(partner, "m-001.json|512|1000");
                together.countDown();
                together.await();
                verdicts.recall(exchange);
                if (exchange.getVariable(MessageVerdicts.VERDICT) == null) {
                    synchronized (judging) {
                        judging.add(exchange);
                    }
                    judge(exchange); // what the ingest routes do: validate, resolve, assemble
                }
                return exchange;
            }));
        }
        List<Exchange> done = new ArrayList<>();
        for (Future<Exchange> read : reads) {
            done.add(read.get(10, TimeUnit.SECONDS));
        }
        assertThat(judging).as("judged once").hasSize(1);
        Push push = judging.get(0).getMessage().getBody(Push.class);
        assertThat(done).allSatisfy(e -> assertThat(e.getMessage().getBody()).isSameAs(push));
        assertThat(done).filteredOn(e -> "accepted".equals(e.getVariable(MessageVerdicts.VERDICT))).hasSize(2);
    }

    @Test
    void aRejectionIsSettledForTheOtherPartnersAndAFailureLeavesTheJudgingToTheNext() throws Exception {
        Exchange first = read("a", "bad.json|9|1");
        verdicts.recall(first);
        assertThat(first.getVariable(MessageVerdicts.VERDICT)).isNull();
        // the reject route dead-letters and counts it; the exchange then ends well, without a push
        end(first, false);
        Exchange second = read("b", "bad.json|9|1");
        verdicts.recall(second);
        assertThat(second.getVariable(MessageVerdicts.VERDICT)).isEqualTo("settled");

        Exchange failing = read("a", "odd.json|9|1");
        verdicts.recall(failing);
        Callable<Exchange> other = () -> {
            Exchange exchange = read("b", "odd.json|9|1");
            verdicts.recall(exchange);
            return exchange;
        };
        Future<Exchange> waiting = readers.submit(other);
        end(failing, true);
        assertThat(waiting.get(10, TimeUnit.SECONDS).getVariable(MessageVerdicts.VERDICT)).as("judges it itself").isNull();
    }

    @Test
    void aVerdictEveryPartnerTookIsForgottenAndAMessageWithoutKeyIsAlwaysJudged() throws Exception {
        for (String partner : List.of("a", "b", "c")) {
            Exchange exchange = read(partner, "m-002.json|5|5");
            verdicts.recall(exchange);
            if (exchange.getVariable(MessageVerdicts.VERDICT) == null) {
                judge(exchange);
            }
        }
        // read again (after a restart of the partner's reading): judged anew, not taken from a verdict kept for ever
        Exchange again = read("a", "m-002.json|5|5");
        verdicts.recall(again);
        assertThat(again.getVariable(MessageVerdicts.VERDICT)).isNull();

        Exchange http = new DefaultExchange(context);
        verdicts.recall(http);
        assertThat(http.getVariable(MessageVerdicts.VERDICT)).isNull();
        assertThat(http.getExchangeExtension().handoverCompletions()).isNull();
    }

    @Test
    void theAcceptedPushesKeptAreBoundedByTheirSize() throws Exception {
        String large = "x".repeat(1024 * 1024);
        for (int i = 0; i < 20; i++) {
            Exchange exchange = read("a", "big-" + i);
            verdicts.recall(exchange);
            exchange.getMessage().setBody(new Push("big-" + i, "match:1", "odds", large, large, Instant.now()));
            verdicts.accepted(exchange);
        }
        Exchange latest = read("b", "big-19");
        verdicts.recall(latest);
        assertThat(latest.getVariable(MessageVerdicts.VERDICT)).as("kept").isEqualTo("accepted");
        Exchange oldest = read("b", "big-0");
        verdicts.recall(oldest);
        assertThat(oldest.getVariable(MessageVerdicts.VERDICT)).as("forgotten: judged again").isNull();
    }

    private Exchange read(String partner, String key) {
        Exchange exchange = new DefaultExchange(context);
        exchange.setVariable(PartnerDeliveries.PARTNER, partner);
        exchange.setVariable(MessageVerdicts.KEY, key);
        return exchange;
    }

    private void judge(Exchange exchange) {
        exchange.getMessage().setBody(new Push("m", "match:1", "odds", "{}", "{}", Instant.now()));
        verdicts.accepted(exchange);
    }

    private static void end(Exchange exchange, boolean failed) {
        if (failed) {
            exchange.setException(new IllegalStateException("failed"));
        }
        for (Synchronization s : exchange.getExchangeExtension().handoverCompletions()) {
            if (failed) {
                s.onFailure(exchange);
            } else {
                s.onComplete(exchange);
            }
        }
    }
}
