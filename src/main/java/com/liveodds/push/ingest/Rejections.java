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
    private volatile Meters meters;
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
        Meters m = meters;
        if (m == null) {
            // no Meters handed over: the one of the context, or (plain Java) one of its own, kept
            meters = m = Meters.of(camelContext);
        }
        return m.registry();
    }

    /** The meter registry of the bundle (beans.yaml: {@code #bean:liveoddsMeters}). */
    public void setMeters(Meters meters) {
        this.meters = meters;
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
