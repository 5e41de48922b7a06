package com.liveodds.push.delivery;

import com.liveodds.push.queue.KeyedQueueEndpoint;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Liveness check {@code delivery}: DOWN once the delivery of any partner met an {@link Error}, so that the service gets
 * restarted (one JVM serves every partner: an Error in one partner's delivery leaves the whole JVM in doubt).
 */
public class DeliveryHealthCheck extends AbstractHealthCheck {

    private final Map<String, KeyedQueueEndpoint> queues;

    /** @param queues each partner's queue by name ("" for the single partner of {@code liveodds.partner.*}) */
    public DeliveryHealthCheck(Map<String, KeyedQueueEndpoint> queues) {
        super("liveodds", "delivery");
        this.queues = new LinkedHashMap<>(queues);
    }

    @Override
    public boolean isReadiness() {
        return false;
    }

    /** Camel's AbstractHealthCheck is no liveness check by default: without this, /observe/health/live never saw it. */
    @Override
    public boolean isLiveness() {
        return true;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        for (Map.Entry<String, KeyedQueueEndpoint> partner : queues.entrySet()) {
            Error fatal = partner.getValue().getFatalError();
            if (fatal != null) {
                String whose = partner.getKey().isEmpty() ? "delivery" : "delivery to partner " + partner.getKey();
                builder.message(whose + " failed with " + fatal.getClass().getSimpleName() + "; restart the service").down();
                return;
            }
        }
        builder.up();
    }
}
