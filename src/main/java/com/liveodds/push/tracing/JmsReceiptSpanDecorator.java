package com.liveodds.push.tracing;

import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;

import jakarta.jms.JMSException;
import jakarta.jms.Message;

import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.component.jms.JmsMessage;
import org.apache.camel.telemetry.SpanContextPropagationExtractor;
import org.apache.camel.telemetry.SpanContextPropagationInjector;
import org.apache.camel.telemetry.decorators.JmsSpanDecorator;
import org.apache.camel.telemetry.propagation.CamelJMSHeadersSpanContextPropagationExtractor;

/**
 * camel-telemetry's span decorator of the bundle's JMS source ({@code liveoddsJms}, found by Camel through
 * {@code META-INF/services}): the receipt's span reads the message id and the trace context (every string property, as
 * Camel's JMS decorator takes them: {@code __dash__} for '-', any case) off the JMS message itself, and names its
 * destination from the endpoint. Camel's JMS decorator reads them from the Camel headers, and the first read of a
 * header has camel-jms copy every JMS header and property into the message: the cost the source avoids
 * (JmsAcknowledgement) would come back with tracing on. A received message is never sent on, so it gets no trace
 * headers either.
 */
public class JmsReceiptSpanDecorator extends JmsSpanDecorator {

    @Override
    public String getComponent() {
        return "liveoddsJms";
    }

    /** Not JmsComponent's: a host's JMS component under a scheme of its own keeps Camel's decorator. */
    @Override
    public String getComponentClassName() {
        return getClass().getName();
    }

    @Override
    protected String getDestination(Exchange exchange, Endpoint endpoint) {
        return jmsMessage(exchange) == null ? super.getDestination(exchange, endpoint) : stripSchemeAndOptions(endpoint);
    }

    @Override
    protected String getMessageId(Exchange exchange) {
        Message jms = jmsMessage(exchange);
        if (jms == null) {
            return super.getMessageId(exchange);
        }
        try {
            return jms.getJMSMessageID();
        } catch (JMSException e) {
            return null;
        }
    }

    @Override
    public SpanContextPropagationExtractor getExtractor(Exchange exchange) {
        Message jms = jmsMessage(exchange);
        if (jms == null) {
            return super.getExtractor(exchange);
        }
        Map<String, Object> properties = new HashMap<>();
        try {
            for (Enumeration<?> names = jms.getPropertyNames(); names.hasMoreElements(); ) {
                String name = (String) names.nextElement();
                properties.put(name, jms.getObjectProperty(name));
            }
        } catch (JMSException | RuntimeException e) {
            // properties that cannot be read: no trace to continue
        }
        // Camel's own reading of JMS properties ('__dash__' for '-', any case, strings only), off the JMS message
        return new CamelJMSHeadersSpanContextPropagationExtractor(properties);
    }

    @Override
    public SpanContextPropagationInjector getInjector(Exchange exchange) {
        return jmsMessage(exchange) == null ? super.getInjector(exchange) : (key, value) -> { };
    }

    private static Message jmsMessage(Exchange exchange) {
        return exchange.getIn() instanceof JmsMessage received ? received.getJmsMessage() : null;
    }
}
