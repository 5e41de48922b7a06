package com.liveodds.push.source;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.apache.camel.support.service.ServiceSupport;

/**
 * Readiness check {@code source}: DOWN while the active source cannot receive (broker unreachable, no partition
 * assigned). Sources without a monitor (file, http) have nothing that can fail apart from the service itself. A
 * consumer suspended because its partner is paused is not judged.
 */
public class SourceHealthCheck extends AbstractHealthCheck {

    private volatile String source = "file";

    public SourceHealthCheck() {
        super("liveodds", "source");
    }

    /** The active source, {@code liveodds.source}. */
    public void setSource(String source) {
        this.source = source.trim().toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        builder.detail("source", source);
        List<SourceMonitor> monitors = getCamelContext().getRegistry().findByType(SourceMonitor.class).stream()
                .filter(m -> source.equals(m.source())).sorted(Comparator.comparing(SourceMonitor::routeId)).toList();
        // with a route per partner, any partner's that cannot receive is named
        List<String> problems = new ArrayList<>();
        for (SourceMonitor monitor : monitors) {
            problem(monitor).ifPresent(p -> problems.add(monitors.size() == 1 ? p : monitor.routeId() + ": " + p));
        }
        if (problems.isEmpty()) {
            builder.up();
        } else {
            builder.message(source + " source cannot receive: " + String.join("; ", problems)).down();
        }
    }

    /** A source whose route is not running cannot receive, whatever its broker says. */
    private Optional<String> problem(SourceMonitor monitor) {
        String routeId = monitor.routeId();
        if (getCamelContext().getRoute(routeId) == null || !getCamelContext().getRouteController().getRouteStatus(routeId).isStarted()) {
            return Optional.of("route " + routeId + " is not started");
        }
        if (getCamelContext().getRoute(routeId).getConsumer() instanceof ServiceSupport consumer && consumer.isSuspended()) {
            // held on purpose: its partner is paused (contract 24), its backlog waits on the broker
            return Optional.empty();
        }
        return monitor.problem(getCamelContext());
    }
}
