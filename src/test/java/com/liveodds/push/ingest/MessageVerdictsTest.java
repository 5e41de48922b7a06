package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.liveodds.push.delivery.PartnerDeliveries;
import com.liveodds.push.delivery.Push;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One message read by three partners' sources (JMS, Kafka) is judged by the first of them; the later ones take its
 * verdict, and none waits for another.
 */
class MessageVerdictsTest {

    private final CamelContext context = new DefaultCamelContext();
    private final MessageVerdicts verdicts = new MessageVerdicts();
    private final ExecutorService readers = Executors.newFixedThreadPool(1);

    MessageVerdictsTest() {
        verdicts.setPartners("a, b,c");
    }

    @AfterEach
    void stop() {
        readers.shutdownNow();
    }

    @Test
    void theLaterPartnersTakeTheVerdictTheFirstReached() {
        Exchange first = read("a", "m-001.json|512|1000");
        verdicts.recall(first);
        assertThat(first.getVariable(MessageVerdicts.VERDICT)).isNull();
        judge(first); // what the ingest routes do: validate, resolve, assemble
        Push push = first.getMessage().getBody(Push.class);
        for (String partner : List.of("b", "c")) {
            Exchange later = read(partner, "m-001.json|512|1000");
            verdicts.recall(later);
            assertThat(later.getVariable(MessageVerdicts.VERDICT)).isEqualTo("accepted");
            assertThat(later.getMessage().getBody()).isSameAs(push);
        }
    }

    @Test
    void aPartnerThatReadsTheMessageWhileAnotherJudgesItJudgesItItselfWithoutWaiting() throws Exception {
        Exchange judging = read("a", "m-003.json|512|1000");
        verdicts.recall(judging);
        Future<Exchange> meanwhile = readers.submit(() -> {
            Exchange exchange = read("b", "m-003.json|512|1000");
            verdicts.recall(exchange);
            return exchange;
        });
        await().atMost(Duration.ofSeconds(10)).until(meanwhile::isDone);
        assertThat(meanwhile.get().getVariable(MessageVerdicts.VERDICT)).as("judges it itself").isNull();
        judge(judging);
        Exchange last = read("c", "m-003.json|512|1000");
        verdicts.recall(last);
        assertThat(last.getVariable(MessageVerdicts.VERDICT)).isEqualTo("accepted");
    }

    @Test
    void aRejectionIsSettledForTheOtherPartnersAndAFailureLeavesTheJudgingToTheNext() {
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
        end(failing, true);
        Exchange next = read("b", "odd.json|9|1");
        verdicts.recall(next);
        assertThat(next.getVariable(MessageVerdicts.VERDICT)).as("judges it itself").isNull();
        judge(next);
        Exchange last = read("c", "odd.json|9|1");
        verdicts.recall(last);
        assertThat(last.getVariable(MessageVerdicts.VERDICT)).as("the verdict b reached").isEqualTo("accepted");
    }

    @Test
    void aVerdictEveryPartnerTookIsForgottenAndAMessageWithoutKeyOrPartnerIsAlwaysJudged() {
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
        // the inbox several partners share reads each message once for all of them: it names no partner
        Exchange inbox = new DefaultExchange(context);
        inbox.setVariable(MessageVerdicts.KEY, "m-002.json|5|5");
        verdicts.recall(inbox);
        assertThat(inbox.getExchangeExtension().handoverCompletions()).as("no verdict kept for it").isNull();
    }

    @Test
    void theAcceptedPushesKeptAreBoundedByTheirSize() {
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
