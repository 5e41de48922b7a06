package com.liveodds.push.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import com.liveodds.push.support.EmbeddedArtemis;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

import static org.awaitility.Awaitility.await;

/** The odds engine handing messages to a source (or to the raw baseline); records the hand-over time of each. */
interface Upstream extends AutoCloseable {

    void hand(Load load, int i) throws Exception;

    /** Waits until the source holds everything handed so far (a preloaded JMS queue). */
    default void settle(int count) {
    }

    @Override
    default void close() throws Exception {
    }

    /** Hands messages from first (inclusive) to end (exclusive) at perSecond, message i due at start + (i - first) / perSecond. */
    static void pace(Upstream upstream, Load load, int first, int end, double perSecond, long start) throws Exception {
        for (int i = first; i < end; i++) {
            long due = start + (long) ((i - first) * 1e9 / perSecond);
            for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                LockSupport.parkNanos(wait); // the upstream's pace: the load the bench measures
            }
            upstream.hand(load, i);
        }
    }

    /**
     * A JMS producer on the embedded broker: JMSXGroupID = fight id; the hand-over is the moment send() returns. It
     * sends to the queue, or publishes to the topic of that name (a multicast address with a queue per subscriber).
     */
    final class Jms implements Upstream {
        private final EmbeddedArtemis broker;
        private final String queue;
        private final Connection connection;
        private final Session session;
        private final MessageProducer producer;

        /** blocking: each send waits for the broker (paced runs); otherwise sends stream (preloading). */
        Jms(EmbeddedArtemis broker, String queue, boolean blocking, boolean topic) throws JMSException {
            this.broker = broker;
            this.queue = queue;
            ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(broker.url());
            factory.setBlockOnDurableSend(blocking);
            this.connection = factory.createConnection();
            this.session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            this.producer = session.createProducer(topic ? session.createTopic(queue) : session.createQueue(queue));
        }

        @Override
        public void hand(Load load, int i) throws JMSException {
            TextMessage message = session.createTextMessage(load.body(i));
            message.setStringProperty("JMSXGroupID", load.fightId(load.matchOf(i)));
            producer.send(message);
            load.handed(i);
        }

        @Override
        public void settle(int count) {
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100))
                    .until(() -> broker.queue(queue) != null && broker.queue(queue).getMessageCount() >= count);
        }

        @Override
        public void close() throws JMSException {
            connection.close();
        }
    }

    /** The file source's producer: writes {@code .<id>.tmp}, then renames it to {@code <id>.json}; the hand-over is the rename. */
    final class Folder implements Upstream {
        private final Path inbox;

        Folder(Path inbox) {
            this.inbox = inbox;
        }

        @Override
        public void hand(Load load, int i) throws IOException {
            String id = load.id(i);
            Path tmp = inbox.resolve("." + id + ".tmp");
            Files.writeString(tmp, load.body(i), StandardCharsets.UTF_8);
            Files.move(tmp, inbox.resolve(id + ".json"), StandardCopyOption.ATOMIC_MOVE);
            load.handed(i);
        }
    }
}
