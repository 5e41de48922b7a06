package com.liveodds.push.delivery;

import java.util.Map;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/** Liveness check {@code delivery}: DOWN once delivery met an {@link Error}, so that the service gets restarted. */
public class DeliveryHealthCheck extends AbstractHealthCheck {

    private final MatchQueues queues;

    public DeliveryHealthCheck(MatchQueues queues) {
        super("liveodds", "delivery");
        this.queues = queues;
    }

    @Override
    public boolean isReadiness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        Error fatal = queues.fatalError();
        if (fatal == null) {
            builder.up();
        } else {
            builder.message("delivery failed with " + fatal.getClass().getSimpleName() + "; restart the service").down();
        }
    }
}
