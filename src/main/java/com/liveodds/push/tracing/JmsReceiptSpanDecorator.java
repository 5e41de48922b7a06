package com.liveodds.push.tracing;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import jakarta.jms.JMSException;
import jakarta.jms.Message;

import org.apache.camel.Exchange;
import org.apache.camel.component.jms.JmsMessage;
import org.apache.camel.telemetry.SpanContextPropagationExtractor;
import org.apache.camel.telemetry.decorators.JmsSpanDecorator;

/**
 * camel-telemetry's span decorator of the bundle's JMS source ({@code liveoddsJms}, found by Camel through
 * {@code META-INF/services}): the receipt's span reads the message id and the W3C {@code traceparent} and
 * {@code tracestate} from the JMS message itself. Camel's JMS decorator reads them from the Camel headers, and the first
 * read of a header has camel-jms copy every JMS header and property into the message: the cost the source avoids
 * (JmsAcknowledgement) would come back with tracing on.
 */
public class JmsReceiptSpanDecorator extends JmsSpanDecorator {

    private static final String[] W3C = {"traceparent", "tracestate"};

    @Override
    public String getComponent() {
        return "liveoddsJms";
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
        Map<String, Object> w3c = new LinkedHashMap<>();
        for (String name : W3C) {
            try {
                String value = jms.getStringProperty(name);
                if (value != null) {
                    w3c.put(name, value);
                }
            } catch (JMSException | RuntimeException e) {
                // a property that is not a string: no trace to continue
            }
        }
        return new W3cProperties(w3c);
    }

    private static Message jmsMessage(Exchange exchange) {
        return exchange.getIn() instanceof JmsMessage received ? received.getJmsMessage() : null;
    }

    private record W3cProperties(Map<String, Object> values) implements SpanContextPropagationExtractor {

        @Override
        public Iterator<Map.Entry<String, Object>> iterator() {
            return Collections.unmodifiableMap(values).entrySet().iterator();
        }

        @Override
        public Object get(String key) {
            return values.get(key);
        }

        @Override
        public Set<String> keys() {
            return values.keySet();
        }
    }
}
