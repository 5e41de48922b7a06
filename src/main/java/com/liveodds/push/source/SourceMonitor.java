package com.liveodds.push.source;

import java.util.Optional;

import org.apache.camel.CamelContext;

/** Tells whether one kind of source can receive right now; the {@code source} readiness check asks the active one. */
public interface SourceMonitor {

    /** The value of {@code liveodds.source} this monitor speaks for: {@code jms}, {@code kafka} ... */
    String source();

    /** @return empty when the source can receive, else why not, in words for an operator (never a secret) */
    Optional<String> problem(CamelContext context);

    /** A source whose route is not running cannot receive, whatever its broker says. */
    static Optional<String> routeNotStarted(CamelContext context, String routeId) {
        if (context.getRoute(routeId) == null || !context.getRouteController().getRouteStatus(routeId).isStarted()) {
            return Optional.of("route " + routeId + " is not started");
        }
        return Optional.empty();
    }
}
