package com.liveodds.push.ingest;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.liveodds.push.ingest.RejectedMessageException.Reason;
import com.liveodds.push.ops.Meters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;

/**
 * Counts rejected upstream messages by reason: {@code liveodds_messages_rejected_total{reason="not_utf8"}}. Every
 * source's rejection comes here once, whether it was dead-lettered or answered 400.
 */
public class Rejections implements CamelContextAware {

    private CamelContext camelContext;
    private volatile MeterRegistry registry;
    private final Map<Reason, Counter> counters = new ConcurrentHashMap<>();

    public void rejected(RejectedMessageException rejection) {
        rejected(rejection.getReason());
    }

    public void rejected(Reason reason) {
        counters.computeIfAbsent(reason, r -> Counter.builder("liveodds.messages.rejected")
                .description("Upstream messages rejected, by reason").tag("reason", r.label()).register(registry()))
                .increment();
    }

    private MeterRegistry registry() {
        MeterRegistry r = registry;
        if (r == null) {
            r = camelContext == null ? new io.micrometer.core.instrument.simple.SimpleMeterRegistry() : Meters.registry(camelContext);
            registry = r;
        }
        return r;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
