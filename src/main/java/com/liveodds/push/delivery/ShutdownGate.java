package com.liveodds.push.delivery;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;

/**
 * Where a lane meets shutdown. Once the service is stopping, no push starts and no retry waits any longer: the
 * message goes back to its source unacknowledged. Starting the next push of a match whose earlier push was just
 * handed back would deliver them out of order after the restart.
 */
public class ShutdownGate implements CamelContextAware {

    /** How often a waiting retry looks whether the service is stopping. */
    private static final long CHECK_MILLIS = 100;

    private CamelContext camelContext;
    /**
     * Set by SIGTERM (a JVM shutdown hook runs beside camel-main's own), because camel-main drains in-flight
     * exchanges before the CamelContext reports that it is stopping.
     */
    private volatile boolean jvmStopping;

    public ShutdownGate() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> jvmStopping = true, "shutdown-gate"));
    }

    /** Before the first attempt of a push. */
    public void admit(Push push) {
        if (stopping()) {
            throw new DeliveryInterruptedException(push, "the service is stopping");
        }
    }

    /**
     * Waits the delay the last attempt asked for; marks the push interrupted if the service is stopping, withdrawn if
     * its source no longer wants it (a Kafka partition that moved away).
     */
    public void pause(DeliveryState state) throws InterruptedException {
        long until = System.currentTimeMillis() + state.getDelayMillis();
        long left;
        while (!stopping() && state.isWanted() && (left = until - System.currentTimeMillis()) > 0) {
            Thread.sleep(Math.min(left, CHECK_MILLIS));
        }
        if (state.isAgain()) {
            if (stopping()) {
                state.interrupt();
            } else if (!state.isWanted()) {
                state.withdraw();
            }
        }
    }

    private boolean stopping() {
        return jvmStopping || camelContext != null && (camelContext.isStopping() || camelContext.isStopped());
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
