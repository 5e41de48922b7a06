package com.liveodds.push.delivery;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.apache.camel.support.service.ServiceHelper;

/**
 * Where delivery meets shutdown. Once the service is stopping, no push starts and no retry waits any longer: the
 * message goes back to its source unacknowledged, and so do the later messages of its match, so they cannot
 * overtake it after the restart.
 */
public class ShutdownGate implements CamelContextAware {

    private final AtomicBoolean stopping = new AtomicBoolean();
    private final List<Runnable> onStop = new CopyOnWriteArrayList<>();
    private CamelContext camelContext;

    public ShutdownGate() {
        // SIGTERM: camel-main drains in-flight exchanges before the CamelContext reports that it is stopping
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "liveodds-shutdown-gate"));
    }

    public boolean isStopping() {
        return stopping.get();
    }

    /** Runs {@code action} once, when the service starts stopping (at once if it already is). */
    public void onStop(Runnable action) {
        onStop.add(action);
        if (stopping.get()) {
            action.run();
        }
    }

    /** Closes the gate: from the JVM's shutdown hook, the CamelContext stopping, or a test. */
    public void close() {
        if (stopping.compareAndSet(false, true)) {
            onStop.forEach(Runnable::run);
        }
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
        EventNotifierSupport notifier = new EventNotifierSupport() {
            @Override
            public void notify(CamelEvent event) {
                ShutdownGate.this.close();
            }

            @Override
            public boolean isEnabled(CamelEvent event) {
                return event.getType() == CamelEvent.Type.CamelContextStopping;
            }
        };
        try {
            camelContext.getManagementStrategy().addEventNotifier(notifier);
        } catch (Exception e) {
            throw new IllegalStateException("cannot watch the CamelContext for its stop", e);
        }
        if (camelContext.isStarted()) {
            ServiceHelper.startService(notifier);
        }
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
