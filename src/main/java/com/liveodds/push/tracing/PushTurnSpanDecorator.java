package com.liveodds.push.tracing;

import com.liveodds.push.queue.KeyedQueueComponent;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.telemetry.Span;
import org.apache.camel.telemetry.decorators.AbstractSpanDecorator;

/**
 * camel-telemetry's span decorator of the bundle's queue ({@code liveoddsQueue}, found by Camel through
 * {@code META-INF/services}): the span of a push's turn (the push route) holds the push's exchange, from which the
 * requests inside it are described (partner, match, message, attempt, status). It touches only the bundle's spans, so
 * a host that traces the bundle with a tracer of its own gets Camel's plain span for the queue.
 */
public class PushTurnSpanDecorator extends AbstractSpanDecorator {

    @Override
    public String getComponent() {
        return "liveoddsQueue";
    }

    @Override
    public String getComponentClassName() {
        return KeyedQueueComponent.class.getName();
    }

    @Override
    public void beforeTracingEvent(Span span, Exchange exchange, Endpoint endpoint) {
        super.beforeTracingEvent(span, exchange, endpoint);
        if (span instanceof BundleSpan turn) {
            turn.holdTurn(exchange);
        }
    }
}
