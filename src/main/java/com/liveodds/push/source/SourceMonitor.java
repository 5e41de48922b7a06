package com.liveodds.push.source;

import java.util.Optional;

import org.apache.camel.CamelContext;

/**
 * Tells whether one source route can receive right now; the {@code source} readiness check asks those of the active
 * source (one per partner where the source is per partner).
 */
public interface SourceMonitor {

    /** The value of {@code liveodds.source} this monitor speaks for: {@code jms}, {@code kafka} ... */
    String source();

    /**
     * The route the source consumes with: {@code liveodds-source-jms}, {@code liveodds-source-kafka} ...
     * (routes/source-*.yaml), or one partner's of them ({@code liveodds-source-kafka-a}).
     */
    String routeId();

    /**
     * Asked only while the source's route is started.
     *
     * @return empty when the source can receive, else why not, in words for an operator (never a secret)
     */
    Optional<String> problem(CamelContext context);
}
