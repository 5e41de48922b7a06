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
    private Thread hook;
    private EventNotifierSupport notifier;

    /**
     * Watches for the stop (as liveoddsBeans binds it): the JVM's shutdown (SIGTERM: camel-main drains in-flight
     * exchanges before the CamelContext reports that it is stopping) and the CamelContext stopping. A gate made and
     * never started (camel-main makes the beans of a route file twice) leaves nothing behind.
     */
    public synchronized void start() {
        if (hook == null) {
            hook = new Thread(this::close, "liveodds-shutdown-gate");
            Runtime.getRuntime().addShutdownHook(hook);
        }
        watchContext();
    }

    private synchronized void watchContext() {
        if (hook != null && notifier == null && camelContext != null) {
            notifier = new EventNotifierSupport() {
                {
                    // the context's stop only: a notifier that takes exchange events makes Camel raise an event for every
                    // exchange of every route (a tenth of the CPU of a push in the fan-out bench)
                    setIgnoreExchangeEvents(true);
                    setIgnoreRouteEvents(true);
                    setIgnoreStepEvents(true);
                    setIgnoreServiceEvents(true);
                }

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
            ServiceHelper.startService(notifier);
        }
    }

    /** Closes the gate (when it is unbound or its context closes) and removes the shutdown hook and the event notifier. */
    public synchronized void stop() {
        close();
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the JVM is already running its hooks: this one with them
            }
            hook = null;
        }
        if (notifier != null) {
            camelContext.getManagementStrategy().removeEventNotifier(notifier);
            ServiceHelper.stopService(notifier);
            notifier = null;
        }
    }

    /** Whether the gate watches the JVM's shutdown (between start and stop). */
    public synchronized boolean isWatchingShutdown() {
        return hook != null;
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
        synchronized (this) {
            this.camelContext = camelContext;
        }
        watchContext();
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
