package com.liveodds.push.source;

import java.util.Optional;

import org.apache.camel.CamelContext;

/** Tells whether one kind of source can receive right now; the {@code source} readiness check asks the active one. */
public interface SourceMonitor {

    /** The value of {@code liveodds.source} this monitor speaks for: {@code jms}, {@code kafka} ... */
    String source();

    /** The route the source consumes with: {@code source-jms}, {@code source-kafka} ... (routes/source-*.yaml). */
    default String routeId() {
        return "liveodds-source-" + source();
    }

    /**
     * Asked only while the source's route is started.
     *
     * @return empty when the source can receive, else why not, in words for an operator (never a secret)
     */
    Optional<String> problem(CamelContext context);
}
