package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.liveodds.push.delivery.SourceHandover;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InboxHandoversTest {

    private final CamelContext context = new DefaultCamelContext();
    private final InboxHandovers handovers = new InboxHandovers();

    @AfterEach
    void stop() throws Exception {
        context.close();
    }

    @Test
    void aFileHandedBackWithdrawsTheFilesOfItsMatchReadBeforeItNotThoseReadAfter() {
        Exchange first = read("m-1", "match:1");
        Exchange second = read("m-2", "match:1");
        Exchange otherMatch = read("m-3", "match:2");
        for (Exchange exchange : new Exchange[] {first, second, otherMatch}) {
            assertThat(SourceHandover.WITHDRAWN.matches(exchange)).isFalse();
        }

        SourceHandover.of(first).handBack("its dead letter could not be written");

        assertThat(SourceHandover.WITHDRAWN.matches(second)).as("read before the hand-back, same match").isTrue();
        assertThat(SourceHandover.WITHDRAWN.matches(otherMatch)).as("another match").isFalse();
        // read after the hand-back (a millisecond after it at most, the stamp's grain)
        await().atMost(Duration.ofSeconds(5)).until(() -> !SourceHandover.WITHDRAWN.matches(read("m-1", "match:1")));
    }

    @Test
    void aFileOfThePollThatReachesItsHandoverAfterTheHandBackIsWithdrawn() {
        Exchange first = new DefaultExchange(context);
        Exchange second = new DefaultExchange(context);
        // both made by one poll; the second gets its handover once the first's push failed
        handovers.attach(first);
        SourceHandover.of(first).queuedUnder("match:1");
        SourceHandover.of(first).handBack("failed");
        handovers.attach(second);
        SourceHandover.of(second).queuedUnder("match:1");

        assertThat(SourceHandover.WITHDRAWN.matches(second)).isTrue();
    }

    @Test
    void aWithdrawnFileHandedBackWithdrawsNothingMore() {
        Exchange first = read("m-1", "match:1");
        Exchange second = read("m-2", "match:1");
        SourceHandover.WITHDRAWN.matches(first);
        SourceHandover.of(first).handBack("failed");
        Exchange readAgain = await().atMost(Duration.ofSeconds(5)).until(() -> read("m-1", "match:1"),
                exchange -> !SourceHandover.WITHDRAWN.matches(exchange));

        assertThat(SourceHandover.WITHDRAWN.matches(second)).isTrue();
        SourceHandover.of(second).handBack("withdrawn by its source");

        assertThat(SourceHandover.WITHDRAWN.matches(readAgain)).as("read after the first hand-back").isFalse();
    }

    /** A file read now, its push queued under its match. */
    private Exchange read(String messageId, String matchId) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setBody("{\"message_id\":\"" + messageId + "\"}");
        handovers.attach(exchange);
        SourceHandover.of(exchange).queuedUnder(matchId);
        return exchange;
    }
}
