package com.liveodds.push.heartbeat;

import java.util.Map;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/** Readiness check {@code upstream}: DOWN while the upstream feed has been silent longer than allowed. */
public class UpstreamHealthCheck extends AbstractHealthCheck {

    private final UpstreamLiveness liveness;

    public UpstreamHealthCheck(UpstreamLiveness liveness) {
        super("liveodds", "upstream");
        this.liveness = liveness;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        builder.detail("silent.ms", liveness.silentFor().toMillis());
        builder.detail("max.silence.ms", liveness.maxSilence().toMillis());
        if (liveness.isSpeaking()) {
            builder.up();
        } else {
            builder.message("no upstream message for " + liveness.silentFor().toSeconds() + "s").down();
        }
    }
}
