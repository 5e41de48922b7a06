package com.liveodds.push.delivery;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * Waits out the back-off (or {@code Retry-After}) the last attempt asked for, holding no thread: the exchange
 * continues from a timer. The wait ends at once when the service is stopping or the source withdraws the message;
 * the push is then handed back. Only the match of the push waits: every other match goes on.
 */
public class RetryWait extends AsyncProcessorSupport {

    /** How often a waiting retry looks whether its source withdrew the message. */
    private static final long CHECK_MILLIS = 100;

    private final ShutdownGate gate;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "liveodds-retry-wait");
        t.setDaemon(true);
        return t;
    });
    /** The next attempt runs here, not on the timer: it may wait for a token or write a dead letter. */
    private final ExecutorService resumed = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "liveodds-retry");
        t.setDaemon(true);
        return t;
    });
    private final Set<Waiting> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean checking = new AtomicBoolean();

    public RetryWait(ShutdownGate gate) {
        this.gate = gate;
        gate.onStop(() -> waiting.forEach(w -> w.handBack("the service is stopping")));
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        DeliveryState state = exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
        if (state == null || !state.isAgain() || state.getDelayMillis() <= 0) {
            callback.done(true);
            return true;
        }
        Waiting wait = new Waiting(exchange, state, callback);
        checkingWithdrawals();
        waiting.add(wait);
        // supersede hook (contract 17): a snapshot of the match ends the wait at once, the push superseded
        state.whenSuperseded(() -> wait.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON));
        timer.schedule(() -> resumed.execute(wait::resume), state.getDelayMillis(), TimeUnit.MILLISECONDS);
        // closed meanwhile: the stop action may have run before this wait was registered
        if (gate.isStopping()) {
            wait.handBack("the service is stopping");
        }
        return false;
    }

    /** Started with the first wait: camel-main creates the beans of a route file twice, and only one of them waits. */
    private void checkingWithdrawals() {
        if (!checking.get() && checking.compareAndSet(false, true)) {
            timer.scheduleWithFixedDelay(this::checkWithdrawn, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    public void stop() {
        timer.shutdownNow();
        resumed.shutdown();
        waiting.forEach(w -> w.handBack("the service is stopping"));
    }

    private void checkWithdrawn() {
        for (Waiting w : waiting) {
            if (SourceHandover.of(w.exchange).isWithdrawn()) {
                w.handBack("withdrawn by its source");
            }
        }
    }

    private final class Waiting {
        private final Exchange exchange;
        private final DeliveryState state;
        private final AsyncCallback callback;
        private final AtomicBoolean done = new AtomicBoolean();

        Waiting(Exchange exchange, DeliveryState state, AsyncCallback callback) {
            this.exchange = exchange;
            this.state = state;
            this.callback = callback;
        }

        void resume() {
            if (done.compareAndSet(false, true)) {
                waiting.remove(this);
                callback.done(false);
            }
        }

        void handBack(String why) {
            end(DeliveryState.Outcome.HANDED_BACK, why);
        }

        /** Ends the wait early: no further attempt. */
        void end(DeliveryState.Outcome outcome, String why) {
            if (done.compareAndSet(false, true)) {
                waiting.remove(this);
                state.end(outcome, why);
                state.publish(exchange);
                callback.done(false);
            }
        }
    }
}
