package com.liveodds.push.tracing;

import java.util.Set;

import org.apache.camel.CamelContext;
import org.apache.camel.NamedNode;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.opentelemetry2.OpenTelemetryTracer;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.spi.RoutePolicyFactory;

/**
 * Which routes get a span (in place of the tracer's own factory, which gives one to every route of the context): the
 * bundle's {@code liveodds-} routes, so a host's routes get none. Not a timer's tick (a heartbeat's push starts a trace
 * of its own), nor ingest's inner steps, which the {@code liveodds-ingest} span covers.
 */
final class TracedRoutes implements RoutePolicyFactory {

    private static final String BUNDLE = "liveodds-";
    private static final Set<String> INGEST_STEPS = Set.of("liveodds-accept", "liveodds-dispatch");

    private final OpenTelemetryTracer tracer;

    TracedRoutes(OpenTelemetryTracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public RoutePolicy createRoutePolicy(CamelContext context, String routeId, NamedNode route) {
        boolean traced = routeId != null && routeId.startsWith(BUNDLE) && !INGEST_STEPS.contains(routeId) && !ticks(route);
        return traced ? tracer.createRoutePolicy(context, routeId, route) : null;
    }

    private static boolean ticks(NamedNode route) {
        String from = route instanceof RouteDefinition definition ? definition.getEndpointUrl() : null;
        return from != null && (from.startsWith("timer:") || from.startsWith("scheduler:"));
    }
}
