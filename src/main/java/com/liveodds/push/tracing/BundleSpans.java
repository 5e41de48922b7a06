package com.liveodds.push.tracing;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.model.Model;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.camel.telemetry.SpanContextPropagationExtractor;
import org.apache.camel.telemetry.SpanContextPropagationInjector;
import org.apache.camel.telemetry.SpanLifecycleManager;

/**
 * How camel-opentelemetry2's tracer makes its spans in the bundle (its public {@code SpanLifecycleManager}): as
 * {@link BundleSpan}s of the bundle's own OpenTelemetry SDK, which it shuts down with the context (the spans still
 * buffered are sent first). A span is not made the thread's current OpenTelemetry context: the tracer keeps each
 * exchange's spans on the exchange, and nothing in the bundle reads the thread's. Propagation is W3C trace context.
 */
final class BundleSpans extends ServiceSupport implements SpanLifecycleManager {

    private final OpenTelemetrySdk sdk;
    private final Tracer tracer;
    private final Map<String, Map<String, String>> partnerOfRoute = new ConcurrentHashMap<>();

    BundleSpans(OpenTelemetrySdk sdk) {
        this.sdk = sdk;
        this.tracer = sdk.getTracer("liveodds-push");
    }

    @Override
    public org.apache.camel.telemetry.Span create(String spanName, org.apache.camel.telemetry.Span parent,
                                                  SpanContextPropagationExtractor extractor) {
        return new BundleSpan(this, spanName, (BundleSpan) parent, extractor);
    }

    @Override
    public void activate(org.apache.camel.telemetry.Span span) {
        ((BundleSpan) span).activate();
    }

    @Override
    public void deactivate(org.apache.camel.telemetry.Span span) {
        ((BundleSpan) span).end();
    }

    /** Nothing to close: no span was made current on the thread. */
    @Override
    public void close(org.apache.camel.telemetry.Span span) {
    }

    @Override
    public void inject(org.apache.camel.telemetry.Span span, SpanContextPropagationInjector injector, boolean traceIdHeaders) {
        ((BundleSpan) span).inject(injector);
    }

    Tracer tracer() {
        return tracer;
    }

    TextMapPropagator propagator() {
        return W3CTraceContextPropagator.getInstance();
    }

    /**
     * A request to the partner: the attempt of a push or heartbeat, as the push route's variables name it
     * ({@code matchId}, {@code messageType}, {@code messageId}, {@code attempt}), and
     * the partner parameters of the route template the push route came from.
     */
    void describeAttempt(Span span, Exchange exchange) {
        Object match = exchange.getVariable("matchId");
        if (match == null) {
            return;
        }
        Map<String, String> partner = partnerOf(ExchangeHelper.getRoute(exchange));
        String name = partner.get("partner");
        if (name != null && !name.isEmpty()) {
            span.setAttribute("liveodds.partner.name", name);
        }
        String id = partner.get("partnerId");
        if (id != null) {
            span.setAttribute("liveodds.partner.id", id);
        }
        span.setAttribute("liveodds.match", match.toString());
        span.setAttribute("liveodds.message_type", String.valueOf(exchange.getVariable("messageType")));
        span.setAttribute("liveodds.message_id", String.valueOf(exchange.getVariable("messageId")));
        if (exchange.getVariable("attempt") instanceof Integer attempt) {
            span.setAttribute("liveodds.attempt", attempt);
        }
    }

    private Map<String, String> partnerOf(Route route) {
        if (route == null) {
            return Map.of();
        }
        return partnerOfRoute.computeIfAbsent(route.getRouteId(), id -> {
            Model model = route.getCamelContext().getCamelContextExtension().getContextPlugin(Model.class);
            RouteDefinition definition = model == null ? null : model.getRouteDefinition(id);
            Map<String, Object> parameters = definition == null ? null : definition.getTemplateParameters();
            Map<String, String> partner = new HashMap<>();
            if (parameters != null) {
                for (String key : new String[] {"partner", "partnerId"}) {
                    Object value = parameters.get(key);
                    if (value != null) {
                        partner.put(key, value.toString());
                    }
                }
            }
            return partner;
        });
    }

    @Override
    protected void doShutdown() {
        sdk.shutdown().join(10, TimeUnit.SECONDS);
    }
}
