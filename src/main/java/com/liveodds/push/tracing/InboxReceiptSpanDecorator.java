package com.liveodds.push.tracing;

import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.telemetry.decorators.FileSpanDecorator;

/**
 * camel-telemetry's span decorator of the bundle's file source ({@code liveoddsFile}, found by Camel through
 * {@code META-INF/services}): the receipt of an inbox file is described as Camel's file component's is, and named
 * {@code file} as before the source read through a component of its own, rather than by its scheme.
 */
public class InboxReceiptSpanDecorator extends FileSpanDecorator {

    @Override
    public String getComponent() {
        return "liveoddsFile";
    }

    /** Not a component's class: the decorator is found by the scheme alone, as JmsReceiptSpanDecorator's is. */
    @Override
    public String getComponentClassName() {
        return getClass().getName();
    }

    @Override
    public String getOperationName(Exchange exchange, Endpoint endpoint) {
        return "file";
    }
}
