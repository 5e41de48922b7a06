package com.liveodds.push.tracing;

import java.util.Map;

import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import org.apache.camel.CamelContext;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.opentelemetry2.OpenTelemetryTracer;
import org.apache.camel.spi.CamelTracingService;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.telemetry.TraceProcessorsInterceptStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns tracing on ({@code liveodds.tracing.enabled=true}, contract 21): camel-opentelemetry2's tracer as Camel ships
 * it, set up through its public extension points: spans on the bundle's routes only ({@link TracedRoutes}), made by
 * {@link BundleSpans} with the bundle's own OpenTelemetry SDK, which reads the standard {@code OTEL_*} environment
 * variables and {@code otel.*} system properties (OTLP to {@code OTEL_EXPORTER_OTLP_ENDPOINT}, batching, sampling,
 * resource), the push's turn described by {@link PushTurnSpanDecorator} and the JMS receipt by
 * {@link JmsReceiptSpanDecorator}. Nothing of it is made while tracing is off.
 * <p>
 * Host-safe (contract 15): the SDK is not made the JVM's global one and adds no shutdown hook (it stops with the
 * context); the host's routes get no span and its processors are not wrapped (the tracer's exchange-event notifier sees
 * the host's exchanges, and a send outside a traced exchange records nothing). A host that runs a Camel tracer of its
 * own (camel-opentelemetry2 or camel-opentelemetry, set up with {@code camel.opentelemetry2.*} /
 * {@code camel.opentelemetry.*}) keeps it: that one traces the bundle's routes too, and the bundle adds none.
 * <p>
 * Propagation is W3C trace context alone, whatever {@code OTEL_PROPAGATORS} says: an upstream {@code traceparent}
 * (and {@code tracestate}) is continued, and a partner receives {@code traceparent} and {@code tracestate} and no other
 * header (no {@code baggage}).
 */
public final class Tracing {

    /** The beans camel-opentelemetry2 looks its OpenTelemetry tracer and propagators up by (by type), in place of the JVM's global ones. */
    static final String TRACER_BEAN = "liveoddsTracingTracer";
    static final String PROPAGATORS_BEAN = "liveoddsTracingPropagators";
    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
    /** Below every OTEL_* setting: a service name, and traces only (no metrics or logs exporter connecting). */
    private static final Map<String, String> SDK_DEFAULTS = Map.of(
            "otel.service.name", "liveodds-push",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none");

    private Tracing() {
    }

    /** Once per context (camel-main loads the bundle's beans twice); does nothing when a tracer already runs. */
    public static void install(CamelContext context) {
        if (context.getRoutePolicyFactories().stream().anyMatch(TracedRoutes.class::isInstance)) {
            return;
        }
        CamelTracingService host = context.hasService(CamelTracingService.class);
        if (host != null || hostConfigures(context.getPropertiesComponent())) {
            LOG.info("Tracing: the application's own Camel tracer ({}) traces the bundle's routes; the bundle adds none",
                    host != null ? host.getClass().getName() : "camel.opentelemetry*");
            return;
        }
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                .addPropertiesSupplier(() -> SDK_DEFAULTS)
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        BundleSpans spans = new BundleSpans(sdk);
        context.getRegistry().bind(TRACER_BEAN, spans.tracer());
        context.getRegistry().bind(PROPAGATORS_BEAN, ContextPropagators.create(spans.propagator()));
        OpenTelemetryTracer tracer = new OpenTelemetryTracer();
        tracer.setCamelContext(context);
        tracer.init(context);
        // after init, which sets camel-opentelemetry2's own (a span made the thread's current, baggage, headers on each)
        tracer.setSpanLifecycleManager(spans);
        // camel-telemetry 4.18.0 wraps every processor of the context whether or not it traces processors (and builds
        // a name per processor and exchange): the bundle traces none, so the wrapper goes
        context.getCamelContextExtension().getInterceptStrategies().removeIf(TraceProcessorsInterceptStrategy.class::isInstance);
        context.getRoutePolicyFactories().remove(tracer);
        context.addRoutePolicyFactory(new TracedRoutes(tracer));
        try {
            // the SDK stops with the context, after its routes: the spans still buffered are sent first
            context.addService(spans, true, true);
        } catch (Exception e) {
            throw RuntimeCamelException.wrapRuntimeCamelException(e);
        }
        LOG.info("Tracing on: the spans of each message are exported as the OTEL_* settings say (by default OTLP to"
                + " localhost:4317)");
    }

    /** camel-main sets up camel-opentelemetry2 (or camel-opentelemetry) after the bundle's beans when asked to. */
    private static boolean hostConfigures(PropertiesComponent properties) {
        return properties.resolveProperty("camel.opentelemetry2.enabled").map(Boolean::parseBoolean).orElse(false)
                || properties.resolveProperty("camel.opentelemetry.enabled").map(Boolean::parseBoolean).orElse(false);
    }
}
