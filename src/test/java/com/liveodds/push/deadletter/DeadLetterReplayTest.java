package com.liveodds.push.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.liveodds.push.delivery.DeliveryState;
import com.liveodds.push.delivery.DeliveryStates;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.ingest.RejectedMessageException;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DeadLetterReplay alone in a plain CamelContext: a stand-in pipeline delivers bodies with "good", dead-letters again
 * those with "bad" (as the real one does, with its fresh reason) and cannot finish those with "crash".
 */
class DeadLetterReplayTest {

    private static final java.util.regex.Pattern MESSAGE_ID = java.util.regex.Pattern.compile("\"message_id\"\\s*:\\s*\"([^\"]+)\"");

    @TempDir
    Path dir;

    private final CamelContext context = new DefaultCamelContext();
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private DeadLetterStore store;
    private DeadLetterReplay replay;

    @BeforeEach
    void start() throws Exception {
        store = new DeadLetterStore(dir.toString());
        replay = new DeadLetterReplay(store, "direct:replay");
        replay.setCamelContext(context);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:replay").process(exchange -> {
                    String body = exchange.getMessage().getBody(String.class);
                    java.util.regex.Matcher id = MESSAGE_ID.matcher(body);
                    sent.add(id.find() ? id.group(1) : body);
                    if (body.contains("crash")) {
                        throw new IllegalStateException("the service is stopping");
                    }
                    Push push = new Push(body, "match:1", "odds", body, body, Instant.now());
                    DeliveryState state;
                    if (body.contains("good")) {
                        state = DeliveryStates.ended(push, DeliveryState.Outcome.DELIVERED, null);
                    } else {
                        state = DeliveryStates.ended(push, DeliveryState.Outcome.DEAD_LETTERED, "still refused");
                        store.rejected(body.getBytes(StandardCharsets.UTF_8), new RejectedMessageException(
                                RejectedMessageException.Reason.MISSING_FIELD, "still refused"));
                    }
                    exchange.setVariable(DeliveryState.VARIABLE, state);
                });
            }
        });
        context.start();
    }

    @AfterEach
    void stop() throws Exception {
        context.close();
    }

    private void deadLetter(String messageId) {
        store.rejected(("{\"message_id\":\"" + messageId + "\"}").getBytes(StandardCharsets.UTF_8),
                new RejectedMessageException(RejectedMessageException.Reason.MISSING_FIELD, "first refusal"));
    }

    private List<String> storedIds() throws Exception {
        return store.list().stream().map(DeadLetterStore.DeadLetter::messageId).toList();
    }

    @Test
    void replaysInArrivalOrderAndKeepsOneCopyOfEachMessage() throws Exception {
        deadLetter("good-1");
        deadLetter("bad-2");
        deadLetter("crash-3");
        deadLetter("good-4");

        DeadLetterReplay.Report report = replay.replay(null, null);

        assertThat(sent).containsExactly("good-1", "bad-2", "crash-3", "good-4");
        assertThat(report).isEqualTo(new DeadLetterReplay.Report(4, 2, 1, 1));
        // delivered ones are gone; the one refused again is stored once, anew; the one that did not finish stays
        assertThat(storedIds()).containsExactlyInAnyOrder("bad-2", "crash-3");
    }

    @Test
    void replaysOnlyTheLetterAskedForByItsMessageId() throws Exception {
        deadLetter("good-1");
        deadLetter("good-2");

        DeadLetterReplay.Report report = replay.replay(null, "good-2");

        assertThat(sent).containsExactly("good-2");
        assertThat(report).isEqualTo(new DeadLetterReplay.Report(1, 1, 0, 0));
        assertThat(storedIds()).containsExactly("good-1");
    }

    @Test
    void aLetterOfAnotherMatchIsLeftAlone() throws Exception {
        deadLetter("good-1");

        DeadLetterReplay.Report report = replay.replay("match:99", null);

        assertThat(report.chosen()).isZero();
        assertThat(sent).isEmpty();
        assertThat(storedIds()).containsExactly("good-1");
    }
}
