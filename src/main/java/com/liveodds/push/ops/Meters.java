package com.liveodds.push.ops;

import java.util.Map;
import java.util.WeakHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerUtils;

/**
 * The meter registry the bundle's metrics go to: the one camel-micrometer uses ({@code metricsRegistry}, served on
 * {@code /observe/metrics}), so the bundle's own meters and Camel's land together. A host application without
 * metrics gets a registry of the bundle's own per CamelContext (the status endpoint still reads its totals there).
 * Ask for it once the CamelContext has started its services (a bean's first use, not its constructor).
 */
public final class Meters {

    private static final Map<CamelContext, MeterRegistry> WITHOUT_METRICS = new WeakHashMap<>();

    private Meters() {
    }

    public static MeterRegistry registry(CamelContext context) {
        MeterRegistry registry = MicrometerUtils.getMeterRegistryFromCamelRegistry(context.getRegistry(), "metricsRegistry");
        if (registry != null) {
            return registry;
        }
        synchronized (WITHOUT_METRICS) {
            return WITHOUT_METRICS.computeIfAbsent(context, c -> new SimpleMeterRegistry());
        }
    }
}
