package com.liveodds.push.queue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.camel.Processor;
import org.apache.camel.ShutdownRunningTask;
import org.apache.camel.Suspendable;
import org.apache.camel.spi.ExecutorServiceManager;
import org.apache.camel.spi.ShutdownAware;
import org.apache.camel.spi.ThreadPoolProfile;
import org.apache.camel.support.DefaultConsumer;
import org.apache.camel.util.concurrent.ThreadPoolRejectedPolicy;

/**
 * Runs the route for each exchange of its queue whose key's turn has come, on threads of Camel's
 * {@link ExecutorServiceManager}: a new one only when none is idle, up to the in-flight limit, and a single timer
 * for the retry delays. Shutdown-aware and suspendable: as Camel's graceful shutdown begins it suspends the consumer,
 * every exchange still waiting goes back to its source at once, and Camel waits for the runs on the wire only (a stop
 * would stop the route under them).
 */
final class KeyedQueueConsumer extends DefaultConsumer implements ShutdownAware, Suspendable {

    private final KeyedQueueEndpoint endpoint;
    private ExecutorService threads;
    private ScheduledExecutorService timer;

    KeyedQueueConsumer(KeyedQueueEndpoint endpoint, Processor processor) {
        super(endpoint, processor);
        this.endpoint = endpoint;
    }

    @Override
    protected void doStart() throws Exception {
        super.doStart();
        ExecutorServiceManager manager = endpoint.getCamelContext().getExecutorServiceManager();
        ThreadPoolProfile profile = new ThreadPoolProfile("liveoddsQueue");
        profile.setPoolSize(1);
        // transiently above maxInFlight: a thread that just ended its run may not be back in the pool yet
        profile.setMaxPoolSize(2 * endpoint.getMaxInFlight());
        profile.setMaxQueueSize(0);
        profile.setKeepAliveTime(60L);
        profile.setAllowCoreThreadTimeOut(true);
        profile.setRejectedPolicy(ThreadPoolRejectedPolicy.CallerRuns);
        threads = manager.newThreadPool(this, "liveoddsQueue:" + endpoint.getName(), profile);
        timer = manager.newSingleThreadScheduledExecutor(this, "liveoddsQueue:" + endpoint.getName() + " retry delays");
        endpoint.queue().attach(endpoint, getAsyncProcessor(), threads, timer,
                endpoint.getCamelContext().getCamelContextExtension().getReactiveExecutor());
    }

    @Override
    protected void doStop() throws Exception {
        KeyedQueue queue = endpoint.queue();
        queue.stop();
        queue.detach();
        ExecutorServiceManager manager = endpoint.getCamelContext().getExecutorServiceManager();
        if (timer != null) {
            manager.shutdownNow(timer);
        }
        if (threads != null) {
            manager.shutdown(threads);
        }
        super.doStop();
    }

    /** Suspended (the shutdown begins): what waits goes back now, so that no back-off holds up the stop. */
    @Override
    protected void doSuspend() {
        endpoint.queue().stop();
    }

    @Override
    protected void doResume() {
        endpoint.queue().resume();
    }

    @Override
    public boolean deferShutdown(ShutdownRunningTask shutdownRunningTask) {
        return false;
    }

    @Override
    public int getPendingExchangesSize() {
        return endpoint.queue().running();
    }

    @Override
    public void prepareShutdown(boolean suspendOnly, boolean forced) {
        endpoint.queue().stop();
    }
}
