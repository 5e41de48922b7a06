package com.liveodds.push.ops;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerUtils;

/**
 * The meter registry the bundle's metrics go to: the one camel-micrometer uses ({@code metricsRegistry}, served on
 * {@code /observe/metrics}), so the bundle's own meters and Camel's {@code micrometer:} endpoints land together.
 * Ask for it once the CamelContext has started its services (a bean's first use, not its constructor).
 */
public final class Meters {

    private Meters() {
    }

    public static MeterRegistry registry(CamelContext context) {
        return MicrometerUtils.getMeterRegistryFromCamelRegistry(context.getRegistry(), "metricsRegistry");
    }
}
