package com.liveodds.push.delivery;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;

/**
 * The wait between two attempts of a push. It holds the lane (that is what keeps a match in order) but ends soon
 * after the service starts to stop: the push is then handed back unacknowledged instead of delaying shutdown by a
 * back-off or a long {@code Retry-After}.
 */
public class RetryPause implements CamelContextAware {

    /** How often a waiting retry looks whether the service is stopping. */
    private static final long CHECK_MILLIS = 100;

    private CamelContext camelContext;
    /**
     * Set by SIGTERM (a JVM shutdown hook runs beside camel-main's own), because camel-main drains in-flight
     * exchanges before the CamelContext reports that it is stopping.
     */
    private volatile boolean jvmStopping;

    public RetryPause() {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> jvmStopping = true, "retry-pause-shutdown"));
    }

    /**
     * Waits the delay the last attempt asked for; marks the push interrupted if the service is stopping, withdrawn if
     * its source no longer wants it.
     */
    public void await(DeliveryState state) throws InterruptedException {
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
