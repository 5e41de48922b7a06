package com.liveodds.push.support;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.Destination;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.Queue;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/** An Artemis broker in this JVM on 127.0.0.1 (no persistence, no security), and a producer that acts as the odds engine. */
public final class EmbeddedArtemis implements AutoCloseable {

    private final int port;
    private EmbeddedActiveMQ broker;

    public EmbeddedArtemis() {
        this.port = RunningService.freePort();
    }

    /** Starts a fresh broker on the same port (again after {@link #stop()}, for a broker that comes back). */
    public EmbeddedArtemis start() throws Exception {
        Configuration config = new ConfigurationImpl()
                .setPersistenceEnabled(false)
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                .addAcceptorConfiguration("tcp", url());
        broker = new EmbeddedActiveMQ().setConfiguration(config);
        broker.start();
        return this;
    }

    public String url() {
        return "tcp://127.0.0.1:" + port;
    }

    /** One message as the odds engine sends it: JMSXGroupID = fight id, UTF-8 JSON as text or bytes. */
    public record Outgoing(String groupId, String body, boolean asBytes) {
        public static Outgoing text(String groupId, String body) {
            return new Outgoing(groupId, body, false);
        }
    }

    /** Sends in list order over one connection, with a few JMS headers and properties the partner must never see. */
    public void send(String queue, List<Outgoing> messages) throws JMSException {
        send(messages, session -> session.createQueue(queue), Map.of());
    }

    /** The same with string properties on each message (a W3C {@code traceparent}, say). */
    public void send(String queue, List<Outgoing> messages, Map<String, String> properties) throws JMSException {
        send(messages, session -> session.createQueue(queue), properties);
    }

    /** The same to a JMS topic: the multicast address, copied to each of its queues (one per partner, contract 16). */
    public void publish(String topic, List<Outgoing> messages) throws JMSException {
        send(messages, session -> session.createTopic(topic), Map.of());
    }

    /** Makes one message of any JMS type on the sending session. */
    public interface Making {
        Message make(Session session) throws JMSException;
    }

    /** Sends messages of any JMS type (a producer that breaks the contract's TextMessage or BytesMessage rule). */
    public void sendMade(String queue, List<Making> messages) throws JMSException {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(url());
             Connection connection = factory.createConnection();
             Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
             MessageProducer producer = session.createProducer(session.createQueue(queue))) {
            for (Making making : messages) {
                producer.send(making.make(session));
            }
        }
    }

    private interface To {
        Destination of(Session session) throws JMSException;
    }

    private void send(List<Outgoing> messages, To to, Map<String, String> properties) throws JMSException {
        try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(url());
             Connection connection = factory.createConnection();
             Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
             MessageProducer producer = session.createProducer(to.of(session))) {
            for (Outgoing out : messages) {
                Message message;
                if (out.asBytes()) {
                    BytesMessage bytes = session.createBytesMessage();
                    bytes.writeBytes(out.body().getBytes(StandardCharsets.UTF_8));
                    message = bytes;
                } else {
                    message = session.createTextMessage(out.body());
                }
                message.setStringProperty("JMSXGroupID", out.groupId());
                message.setStringProperty("X_Upstream_Trace", "trace-" + out.groupId());
                message.setJMSCorrelationID("corr-" + out.groupId());
                message.setJMSType("odds-engine");
                for (Map.Entry<String, String> property : properties.entrySet()) {
                    message.setStringProperty(property.getKey(), property.getValue());
                }
                producer.send(message);
            }
        }
    }

    /** The broker's view of a queue, null until it exists. */
    public Queue queue(String name) {
        return broker.getActiveMQServer().locateQueue(SimpleString.of(name));
    }

    /** The names of the queues bound to an address (a multicast address has one per subscription). */
    public List<String> queuesOf(String address) throws Exception {
        return broker.getActiveMQServer().bindingQuery(SimpleString.of(address)).getQueueNames().stream()
                .map(SimpleString::toString).toList();
    }

    public void stop() throws Exception {
        broker.stop();
    }

    @Override
    public void close() throws Exception {
        if (broker != null) {
            broker.stop();
        }
    }
}
