package com.liveodds.push.source.jms;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.jms.BytesMessage;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.ingest.MessageVerdicts;
import org.apache.activemq.artemis.jms.client.ActiveMQSession;
import org.apache.camel.Exchange;
import org.apache.camel.component.jms.DefaultJmsMessageListenerContainer;
import org.apache.camel.component.jms.JmsEndpoint;
import org.apache.camel.component.jms.JmsMessage;
import org.apache.camel.component.jms.MessageListenerContainerFactory;
import org.apache.camel.support.DefaultMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jms.listener.AbstractMessageListenerContainer;

/**
 * Acknowledges one JMS message once it is delivered or dead-lettered. The source consumes in Artemis'
 * individual acknowledgement mode with listener containers made here, which do not acknowledge after the listener
 * returns (Spring 6.2 treats any vendor mode as client acknowledgement otherwise), and hands the message to delivery
 * without waiting; its {@link SourceHandover} travels with the push, so the consumer thread is free for the next
 * message while the acknowledgement still waits for the delivery. A message handed back (shutdown, unexpected error)
 * stays unacknowledged: the broker delivers it again once the consumer's session closes.
 */
public class JmsAcknowledgement implements MessageListenerContainerFactory {

    private static final Logger LOG = LoggerFactory.getLogger(JmsAcknowledgement.class);
    /** The acknowledgements of each consumer's session (sessions are cached per consumer; a closed one is dropped). */
    private final Map<Session, SessionAcks> sessions = new ConcurrentHashMap<>();

    @Override
    public AbstractMessageListenerContainer createMessageListenerContainer(JmsEndpoint endpoint) {
        DefaultJmsMessageListenerContainer container = new DefaultJmsMessageListenerContainer(endpoint) {
            /**
             * Spring would recover the session when a message fails before reaching delivery; that hands back every
             * unacknowledged message of the session, those still queued for delivery included, which the broker then delivers
             * again out of order and counts towards its redelivery limit. The failed message just stays unacknowledged.
             */
            @Override
            protected void rollbackOnExceptionIfNecessary(Session session, Throwable ex) {
                LOG.warn("A JMS message failed before reaching delivery ({}); it stays unacknowledged", ex.getMessage());
            }
        };
        container.setAcknowledgeAfterListener(false);
        return container;
    }

    /**
     * Before the message leaves the consumer thread: it is acknowledged when it ends, wherever that is; keyed by its
     * JMS message id (the same in every partner's copy of a multicast message, so it is judged once for all); and it
     * goes on as its body alone, in a plain message. camel-jms copies every JMS header and property into the message at
     * the first touch of a header (a type conversion looks for a charset header), then {@code convertBodyTo}'s new
     * message copies them again. The body is a TextMessage's text or a BytesMessage's bytes (contract 7); any other
     * JMS type carries no JSON text and goes on with no body, so it is rejected as an empty message and acknowledged,
     * not handed back to come again (an ObjectMessage is never deserialized). A producer that sends no message id
     * leaves the message unkeyed.
     */
    public void acknowledgeWhenDone(Exchange exchange) throws JMSException {
        JmsMessage received = exchange.getIn(JmsMessage.class);
        Message jms = received.getJmsMessage();
        String id = jms.getJMSMessageID();
        if (id != null) {
            exchange.setVariable(MessageVerdicts.KEY, "jms:" + id);
        }
        Session session = received.getJmsSession();
        SessionAcks acks = sessions.get(session);
        if (acks == null) {
            sessions.keySet().removeIf(s -> !isOpen(s));
            acks = sessions.computeIfAbsent(session, SessionAcks::new);
        }
        SourceHandover.attach(exchange, new JmsHandover(acks, jms));
        DefaultMessage plain = new DefaultMessage(exchange);
        if (jms instanceof TextMessage text) {
            plain.setBody(text.getText());
        } else if (jms instanceof BytesMessage) {
            plain.setBody(received.getBody());
        }
        exchange.setIn(plain);
    }

    /**
     * One session's messages done with. Pushes end on many threads at once and an Artemis session is not meant for
     * concurrent calls: each thread leaves its message here, and whichever finds no other acknowledging takes them all
     * (flat combining), so no thread that ends a push queues on the session.
     */
    private static final class SessionAcks {
        private final Session session;
        private final Queue<Message> done = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean acknowledging = new AtomicBoolean();

        SessionAcks(Session session) {
            this.session = session;
        }

        void acknowledge(Message message) {
            done.add(message);
            while (!done.isEmpty() && acknowledging.compareAndSet(false, true)) {
                try {
                    synchronized (session) {
                        for (Message next = done.poll(); next != null; next = done.poll()) {
                            acknowledgeOne(next);
                        }
                    }
                } finally {
                    acknowledging.set(false);
                }
            }
        }

        private static void acknowledgeOne(Message message) {
            try {
                message.acknowledge();
            } catch (JMSException | RuntimeException e) {
                LOG.warn("A delivered message could not be acknowledged ({}); the broker will deliver it again and the"
                        + " partner may see it twice", e.toString());
            }
        }
    }

    /** One JMS message: acknowledged on its own (individual acknowledgement) once it is done with. */
    private record JmsHandover(SessionAcks acks, Message message) implements SourceHandover {

        /**
         * Once the session is gone (broker reconnect) the broker delivers the message again: this copy must not be
         * pushed after the later messages of its match.
         */
        @Override
        public boolean isWithdrawn() {
            return !isOpen(acks.session);
        }

        @Override
        public void acknowledge() {
            acks.acknowledge(message);
        }

        @Override
        public void handBack(String why) {
            if (isOpen(acks.session)) {
                LOG.warn("A message was neither delivered nor dead-lettered ({}); it stays unacknowledged and the broker"
                        + " delivers it again when the consumer reconnects or the service restarts", why);
            }
        }
    }

    private static boolean isOpen(Session session) {
        return !(session instanceof ActiveMQSession artemis) || !artemis.getCoreSession().isClosed();
    }
}
