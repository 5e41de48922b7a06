package com.liveodds.push.source.jms;

import java.util.Optional;

import com.liveodds.push.source.SourceMonitor;
import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.component.jms.JmsConsumer;
import org.springframework.jms.listener.AbstractMessageListenerContainer;
import org.springframework.jms.listener.DefaultMessageListenerContainer;

/**
 * The JMS source can receive while its listener container runs with a live broker connection. When the broker is
 * unreachable the container sits in its recovery loop (reconnecting every recovery interval), which is what this
 * reads, so the check needs no connection of its own.
 */
public class JmsSourceMonitor implements SourceMonitor {

    private final String routeId;

    /** For the consumer of the route {@code routeId} (one partner's). */
    public JmsSourceMonitor(String routeId) {
        this.routeId = routeId;
    }

    @Override
    public String routeId() {
        return routeId;
    }

    @Override
    public String source() {
        return "jms";
    }

    @Override
    public Optional<String> problem(CamelContext context) {
        Consumer consumer = context.getRoute(routeId()).getConsumer();
        if (!(consumer instanceof JmsConsumer jms)) {
            return Optional.of("route " + routeId() + " has no JMS consumer");
        }
        AbstractMessageListenerContainer container;
        try {
            container = jms.getListenerContainer();
        } catch (Exception e) {
            return Optional.of("no listener container: " + e.getMessage());
        }
        if (!container.isRunning()) {
            return Optional.of("listener container is not running");
        }
        if (container instanceof DefaultMessageListenerContainer dmlc) {
            if (dmlc.isRecovering()) {
                return Optional.of("broker unreachable, reconnecting");
            }
            if (!dmlc.isRegisteredWithDestination()) {
                return Optional.of("not yet consuming from the queue");
            }
        }
        return Optional.empty();
    }
}
