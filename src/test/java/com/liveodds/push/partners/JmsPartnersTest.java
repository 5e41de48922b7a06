package com.liveodds.push.partners;

import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_A;
import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_B;
import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_C;
import static com.liveodds.push.partners.ThreePartners.assertDeliveredInOrder;
import static com.liveodds.push.partners.ThreePartners.backlogInMemory;
import static com.liveodds.push.partners.ThreePartners.delivered;
import static com.liveodds.push.partners.ThreePartners.sizeFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.RunningService;
import org.apache.activemq.artemis.core.server.Queue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JMS source with three partners of different bookings (contract 16): the upstream is an Artemis multicast
 * address with one queue per partner, so a partner that is down leaves its backlog in its own queue on the broker
 * while the others keep receiving, and gets it, in per-match order, once it is back; down for longer than its queues
 * in memory can hold, what does not fit waits on the broker, and so does what the upstream sends while the service is
 * stopped.
 */
class JmsPartnersTest {

    private static final String ADDRESS = "liveodds.upstream";
    private static final int CONSUMERS = 2;

    @Test
    void aPartnerThatIsDownKeepsItsBacklogInItsQueueWhileTheOthersGoOn(@TempDir Path work) throws Exception {
        try (EmbeddedArtemis broker = new EmbeddedArtemis().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            RunningService first = service(broker, a, b, c, work);
            // each partner's queue on the address, made by its subscription, read by its consumers
            await().atMost(Duration.ofSeconds(30)).until(() -> List.of("a", "b", "c").stream()
                    .allMatch(p -> queueOf(broker, p) != null && queueOf(broker, p).getConsumerCount() == CONSUMERS));
            assertThat(broker.queuesOf(ADDRESS)).hasSize(3);
            c.failing(path -> true);

            publish(broker, "first");
            // a message that breaks the rules reaches every partner's queue, and is dead-lettered once, not per partner
            broker.publish(ADDRESS, List.of(Outgoing.text("1", "{\"message_type\": \"odds\", \"broken")));
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "first").size() == sizeFor(BOOKED_BY_A)
                    && delivered(b, "first").size() == sizeFor(BOOKED_BY_B));
            assertThat(delivered(c, "first")).isEmpty();
            // c's messages wait unacknowledged in c's queue on the broker, c's queues in memory hold no more than their size
            await().atMost(Duration.ofSeconds(20)).until(() -> queueOf(broker, "a").getMessageCount() == 0
                    && queueOf(broker, "b").getMessageCount() == 0);
            assertThat(queueOf(broker, "c").getMessageCount()).isGreaterThanOrEqualTo(sizeFor(BOOKED_BY_C));
            assertThat(backlogInMemory(first, "c")).isLessThanOrEqualTo(ThreePartners.QUEUE_SHARE);

            // the service stops while c is down; what the upstream sends meanwhile waits in every partner's queue
            first.close();
            publish(broker, "second");
            assertThat(queueOf(broker, "a").getMessageCount()).isEqualTo(ThreePartners.batch("second").size());
            try (RunningService second = service(broker, a, b, c, work)) {
                // for as long as c stays down, the others keep receiving
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "second").size() == sizeFor(BOOKED_BY_A)
                        && delivered(b, "second").size() == sizeFor(BOOKED_BY_B));
                await().atMost(Duration.ofSeconds(20)).until(() -> queueOf(broker, "c").getMessageCount() >= 2L * sizeFor(BOOKED_BY_C));
                System.out.printf("JMS-PARTNERS: while c is down, c's queue on the broker holds %d messages, its queues in memory %d%n",
                        queueOf(broker, "c").getMessageCount(), backlogInMemory(second, "c"));
                assertThat(backlogInMemory(second, "c")).isLessThanOrEqualTo(ThreePartners.QUEUE_SHARE);
                assertThat(queueOf(broker, "c").getMessagesKilled()).isZero();

                c.failing(path -> false);
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(c, "first").size() == sizeFor(BOOKED_BY_C)
                        && delivered(c, "second").size() == sizeFor(BOOKED_BY_C));
                await().atMost(Duration.ofSeconds(20)).until(() -> queueOf(broker, "c").getMessageCount() == 0);

                // nothing lost, nothing unbooked, per match in upstream order, for each partner
                assertDeliveredInOrder(a, BOOKED_BY_A);
                assertDeliveredInOrder(b, BOOKED_BY_B);
                assertDeliveredInOrder(c, BOOKED_BY_C);
                assertThat(second.deadLetterEntries()).singleElement()
                        .satisfies(letter -> assertThat(letter.path("kind").asText()).isEqualTo("rejected"));

                // the broker gone: readiness names each partner's consumer that cannot receive
                broker.stop();
                await().atMost(Duration.ofSeconds(15)).until(() -> second.management("/observe/health").body()
                        .contains("jms source cannot receive: liveodds-source-jms-a: broker unreachable"));
                assertThat(second.management("/observe/health").body())
                        .contains("; liveodds-source-jms-b: ", "; liveodds-source-jms-c: ");
            }
        }
    }

    private static RunningService service(EmbeddedArtemis broker, LoopbackPartner a, LoopbackPartner b, LoopbackPartner c,
                                          Path work) throws Exception {
        return ThreePartners.service(a, b, c, work)
                .set("liveodds.source", "jms")
                .set("liveodds.source.jms.url", broker.url())
                .set("liveodds.source.jms.queue", ADDRESS)
                .set("liveodds.source.jms.consumers", Integer.toString(CONSUMERS))
                .set("liveodds.source.jms.recovery-interval", "500")
                .start();
    }

    /** As producers must with several partners: to the topic (multicast), JMSXGroupID = fight id. */
    private static void publish(EmbeddedArtemis broker, String batch) throws Exception {
        broker.publish(ADDRESS, ThreePartners.batch(batch).stream().map(m -> Outgoing.text(m.fight(), m.body())).toList());
    }

    /**
     * The queue of partner {@code name} on the address: its shared durable subscription {@code liveodds.upstream.<name>},
     * which Artemis names with the subscription's dots escaped.
     */
    private static Queue queueOf(EmbeddedArtemis broker, String name) {
        return broker.queue("liveodds\\.upstream\\." + name);
    }
}
