package com.liveodds.push.delivery;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * Waits out the back-off (or {@code Retry-After}) the last attempt asked for, holding no thread: the exchange
 * continues from a timer. Only the match of the push waits: every other match goes on.
 * <p>
 * A wait of its own rather than Camel's redelivery ({@code asyncDelayedRedelivery}): Camel keeps no handle on a
 * scheduled redelivery, and a wait here must end at once from outside. The service stopping or the source withdrawing
 * the message (checked every {@value #CHECK_MILLIS} ms) hands the push back; anything else ends a waiting push early
 * with the outcome it chooses through {@link #end(Exchange, DeliveryState.Outcome, String)}.
 */
public class RetryWait extends AsyncProcessorSupport {

    /** How often a waiting retry looks whether its source withdrew the message. */
    private static final long CHECK_MILLIS = 100;

    private final ShutdownGate gate;
    /** Made when the bean is started and shut down when it is stopped. */
    private volatile ScheduledExecutorService timer;
    /** The next attempt runs here, not on the timer: it may wait for a token or write a dead letter. */
    private volatile ExecutorService resumed;
    private final Map<Exchange, Waiting> waiting = new ConcurrentHashMap<>();
    private final AtomicBoolean checking = new AtomicBoolean();

    public RetryWait(ShutdownGate gate) {
        this.gate = gate;
        gate.onStop(this::handBackAll);
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        DeliveryState state = exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
        if (state == null || !state.isAgain() || state.getDelayMillis() <= 0) {
            callback.done(true);
            return true;
        }
        if (!isRunAllowed()) {
            exchange.setException(new IllegalStateException("liveoddsRetryWait is not started"));
            callback.done(true);
            return true;
        }
        Waiting wait = new Waiting(exchange, state, callback);
        checkingWithdrawals();
        waiting.put(exchange, wait);
        // a snapshot of the match (contract 17) ends the wait at once, the push superseded
        state.whenSuperseded(() -> wait.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON));
        timer.schedule(() -> resumed.execute(wait::resume), state.getDelayMillis(), TimeUnit.MILLISECONDS);
        // closed meanwhile: the stop action may have run before this wait was registered
        if (gate.isStopping()) {
            wait.end(DeliveryState.Outcome.HANDED_BACK, "the service is stopping");
        }
        return false;
    }

    /** Started with the first wait, so an idle bean looks at nothing. */
    private void checkingWithdrawals() {
        if (!checking.get() && checking.compareAndSet(false, true)) {
            timer.scheduleWithFixedDelay(this::checkWithdrawn, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Threads come with {@code start()}: a copy of the bean that is made and never started (camel-main) costs nothing. */
    @Override
    protected void doStart() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "liveodds-retry-wait");
            t.setDaemon(true);
            return t;
        });
        resumed = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "liveodds-retry");
            t.setDaemon(true);
            return t;
        });
        checking.set(false);
    }

    /** Hands back every push still waiting, and lets the threads go. */
    @Override
    protected void doStop() {
        ScheduledExecutorService t = timer;
        ExecutorService r = resumed;
        if (t != null) {
            t.shutdownNow();
        }
        handBackAll();
        if (r != null) {
            r.shutdown();
        }
    }

    private void handBackAll() {
        waiting.values().forEach(w -> w.end(DeliveryState.Outcome.HANDED_BACK, "the service is stopping"));
    }

    private void checkWithdrawn() {
        for (Waiting w : waiting.values()) {
            if (SourceHandover.of(w.exchange).isWithdrawn()) {
                w.end(DeliveryState.Outcome.HANDED_BACK, "withdrawn by its source");
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
                waiting.remove(exchange, this);
                callback.done(false);
            }
        }

        boolean end(DeliveryState.Outcome outcome, String why) {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            waiting.remove(exchange, this);
            state.end(outcome, why);
            state.publish(exchange);
            // the push route goes on off the caller's thread, as after a wait that ran out
            try {
                resumed.execute(() -> callback.done(false));
            } catch (RejectedExecutionException stopped) {
                callback.done(false);
            }
            return true;
        }
    }
}
