package com.liveodds.push.queue;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Predicate;
import org.apache.camel.spi.ReactiveExecutor;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.UnitOfWorkHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exchanges of one {@code liveoddsQueue} name: one queue per key, at most one exchange of a key running its route
 * at a time, up to {@code maxInFlight} keys at once, every key independent of the others. Shared by the endpoints of
 * the name, as seda's queues are; its consumer's endpoint sets its options.
 * <p>
 * An exchange ends once, when its route completes (done), fails (it and the exchanges queued behind it on its key go
 * back to their sources), is superseded, or is handed back (stopping, withdrawn). Only then do the completions it took
 * over from its source run: a run that asks for a retry (header {@link KeyedQueueConstants#RETRY_AFTER}) is no end, the
 * exchange runs again after the delay.
 */
final class KeyedQueue {

    private static final Logger LOG = LoggerFactory.getLogger(KeyedQueue.class);
    /** How often exchanges waiting out a retry delay are asked whether their source withdrew them. */
    private static final long WITHDRAWN_CHECK_MILLIS = 100;

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roomFreed = lock.newCondition();
    private final Map<Object, Key> keys = new HashMap<>();
    private final ArrayDeque<Key> ready = new ArrayDeque<>();
    private final List<Entry> delayed = new ArrayList<>();
    /** Keys with an open hold: what waits behind one cannot go until it is closed. */
    private final Set<Key> heldKeys = new HashSet<>();
    // written under the lock, read without it by the counts below
    private volatile int running;
    private volatile int held;
    private volatile long heldBytes;
    private volatile boolean stopping;
    /** No run starts (the endpoint's pauseRuns): what is ready waits in its place. */
    private boolean paused;

    private int size = 10_000;
    private int readAhead = Integer.MAX_VALUE;
    private long maxBytes = Long.MAX_VALUE;
    private int maxInFlight = 256;
    private boolean supersede;
    private Predicate handBackWhen;
    private AsyncProcessor processor;
    private ExecutorService threads;
    private ScheduledExecutorService timer;
    private ReactiveExecutor reactive;
    private ScheduledFuture<?> withdrawnCheck;
    private volatile Error fatal;

    KeyedQueue(String name) {
        this.name = name;
    }

    String name() {
        return name;
    }

    /** The consumer's side: what runs each exchange, on which threads, and the queue's options. */
    void attach(KeyedQueueEndpoint options, AsyncProcessor processor, ExecutorService threads,
                ScheduledExecutorService timer, ReactiveExecutor reactive) {
        lock.lock();
        try {
            if (this.processor != null) {
                throw new IllegalStateException("liveoddsQueue:" + name + " has a consumer already");
            }
            this.size = options.getSize();
            this.readAhead = options.getReadAhead() == 0 ? Integer.MAX_VALUE : options.getReadAhead();
            this.maxBytes = options.getMaxBytes();
            this.maxInFlight = options.getMaxInFlight();
            this.supersede = options.isSupersede();
            this.handBackWhen = options.getHandBackWhen();
            this.processor = processor;
            this.threads = threads;
            this.timer = timer;
            this.reactive = reactive;
            this.stopping = false;
            withdrawnCheck = handBackWhen == null ? null
                    : timer.scheduleWithFixedDelay(this::checkWithdrawn, WITHDRAWN_CHECK_MILLIS, WITHDRAWN_CHECK_MILLIS,
                            TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
        dispatch();
    }

    /**
     * Takes the exchange (a copy that carries its source's completions) into the queue of its key.
     *
     * @param block wait for a place while every place is taken, rather than failing with {@link QueueFull}
     * @param ended called once the exchange has ended (its completions run), or null
     */
    void offer(Exchange exchange, boolean block, AsyncCallback ended) {
        Object id = exchange.getMessage().getHeader(KeyedQueueConstants.KEY);
        if (id == null) {
            throw new IllegalArgumentException("liveoddsQueue:" + name + " needs the header " + KeyedQueueConstants.KEY);
        }
        Object before = exchange.getMessage().removeHeader(KeyedQueueConstants.BEFORE);
        Long weight = exchange.getMessage().getHeader(KeyedQueueConstants.WEIGHT, Long.class);
        exchange.getMessage().removeHeader(KeyedQueueConstants.WEIGHT);
        Entry entry = new Entry(id, exchange, ended, weight == null ? 0 : Math.max(0, weight),
                exchange.getExchangeExtension().handoverCompletions(),
                Boolean.TRUE.equals(exchange.getMessage().getHeader(KeyedQueueConstants.SUPERSEDES, Boolean.class)),
                Boolean.TRUE.equals(exchange.getMessage().getHeader(KeyedQueueConstants.SUPERSEDABLE, Boolean.class)));
        List<Entry> superseded = new ArrayList<>();
        List<Key> start = List.of();
        RuntimeException refused = null;
        lock.lock();
        try {
            if (before != null && !isHeldBy(keys.get(id), before)) {
                refused = new IllegalStateException("liveoddsQueue:" + name + ": the hold in " + KeyedQueueConstants.BEFORE
                        + " is not an open hold of key " + id);
            } else if (supersede && entry.supersedes) {
                // frees the places of what it supersedes first: a queue full of them would otherwise never let it in
                takeSuperseded(keys.get(id), before == null, superseded);
            }
            if (refused == null) {
                try {
                    // a recovery's exchange (sent with a hold) has its own window: the live ones wait behind its hold
                    awaitRoom(block && before == null, entry.weight, superseded);
                } catch (RuntimeException e) {
                    refused = e;
                }
            }
            if (refused == null) {
                held++;
                heldBytes += entry.weight;
                Key key = keys.computeIfAbsent(id, Key::new);
                if (supersede && entry.supersedes) {
                    // and what came in while it waited for a place
                    takeSuperseded(key, before == null, superseded);
                }
                if (key.hold != null && before == null) {
                    key.behind.add(entry);
                } else {
                    key.waiting.add(entry);
                    if (key.current == null) {
                        key.current = key.waiting.poll();
                        ready.add(key);
                    }
                }
                start = startable();
            }
        } finally {
            lock.unlock();
        }
        superseded.forEach(e -> end(e, Ending.SUPERSEDED, null));
        if (refused != null) {
            // not taken: it ends here, failed, so its source keeps the message
            exchange.setException(refused);
            UnitOfWorkHelper.doneSynchronizations(exchange, entry.completions);
            throw refused;
        }
        start.forEach(this::submit);
    }

    /**
     * Under the lock: until a place is free and the bytes fit (the first exchange always fits, however heavy), and for a
     * waiting producer until fewer than readAhead of those held can go.
     */
    private void awaitRoom(boolean block, long weight, List<Entry> superseded) {
        // what this exchange supersedes ends once it is in: its places count as free
        int freed = superseded.size();
        long freedBytes = 0;
        for (Entry gone : superseded) {
            freedBytes += gone.weight;
        }
        while (held - freed >= size || held - freed > 0 && heldBytes - freedBytes + weight > maxBytes
                || block && held - freed >= readAhead && held - freed - stalled() >= readAhead) {
            if (stopping) {
                break;
            }
            if (!block) {
                throw new QueueFull(name, size);
            }
            try {
                roomFreed.await(WITHDRAWN_CHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HandedBack("interrupted while waiting for a place in liveoddsQueue:" + name);
            }
        }
        if (stopping) {
            throw new HandedBack("the service is stopping");
        }
    }

    /**
     * Under the lock: the exchanges held that cannot go now: those waiting out a retry delay and those queued behind
     * them, and those waiting behind a hold.
     */
    private int stalled() {
        int stalled = 0;
        for (Entry entry : delayed) {
            Key key = keys.get(entry.key);
            stalled += 1 + (key == null ? 0 : key.waiting.size() + (key.hold == null ? key.behind.size() : 0));
        }
        for (Key key : heldKeys) {
            stalled += key.behind.size();
        }
        return stalled;
    }

    /**
     * Under the lock: the supersedable exchanges queued on the key before a superseding one leave it, and the current
     * one is marked; those held behind a hold of the key come before it only when it goes behind the hold too.
     */
    private void takeSuperseded(Key key, boolean behindHold, List<Entry> into) {
        if (key == null) {
            return;
        }
        key.waiting.removeIf(waiter -> waiter.supersedable && into.add(waiter));
        if (behindHold) {
            key.behind.removeIf(waiter -> waiter.supersedable && into.add(waiter));
        }
        Entry current = key.current;
        if (current != null && current.supersedable && current.superseded.compareAndSet(false, true)) {
            if (current.wait != null && current.wait.cancel(false)) {
                // waiting out a retry delay: it ends at its key's next turn, at once, unrun
                current.wait = null;
                delayed.remove(current);
                ready.addFirst(key);
            }
        }
    }

    private static boolean isHeldBy(Key key, Object hold) {
        return key != null && key.hold != null && key.hold == hold;
    }

    /** A hold on the key (see {@link KeyHold}); refused while the queue stops or the key is held already. */
    KeyHold hold(Object id) {
        lock.lock();
        try {
            if (stopping) {
                throw new HandedBack("the service is stopping");
            }
            Key key = keys.computeIfAbsent(id, Key::new);
            if (key.hold != null) {
                throw new IllegalStateException("liveoddsQueue:" + name + ": key " + id + " is held already");
            }
            key.hold = new KeyHold(this, id);
            heldKeys.add(key);
            return key.hold;
        } finally {
            lock.unlock();
        }
    }

    /** The hold ends: what waited behind it joins its key's line, after what was sent before it. */
    void release(KeyHold hold) {
        List<Key> start;
        lock.lock();
        try {
            Key key = keys.get(hold.key());
            if (!isHeldBy(key, hold)) {
                return;
            }
            key.hold = null;
            heldKeys.remove(key);
            key.waiting.addAll(key.behind);
            key.behind.clear();
            if (key.current == null) {
                key.current = key.waiting.poll();
                if (key.current != null) {
                    ready.add(key);
                } else {
                    keys.remove(key.id, key);
                }
            }
            start = startable();
        } finally {
            lock.unlock();
        }
        start.forEach(this::submit);
    }

    /** Under the lock: the ready keys that may start now, counted as running. */
    private List<Key> startable() {
        List<Key> start = new ArrayList<>(1);
        while (!paused && running < maxInFlight && processor != null && !ready.isEmpty()) {
            running++;
            start.add(ready.poll());
        }
        return start;
    }

    private void dispatch() {
        List<Key> start;
        lock.lock();
        try {
            start = startable();
        } finally {
            lock.unlock();
        }
        start.forEach(this::submit);
    }

    private void submit(Key key) {
        try {
            threads.execute(() -> work(key));
        } catch (RejectedExecutionException stopped) {
            work(key);
        }
    }

    /** Runs the key's current exchange, then whatever is ready next, on this thread while it can go on synchronously. */
    private void work(Key key) {
        Key next = key;
        while (next != null) {
            next = runOnce(next);
        }
    }

    private Key runOnce(Key key) {
        Entry entry;
        lock.lock();
        try {
            entry = key.current;
        } finally {
            lock.unlock();
        }
        if (entry.superseded.get()) {
            // superseded before its turn or during its retry delay: it ends unrun
            return finish(key, entry, Ending.SUPERSEDED, null);
        }
        String handBack = handBackReason(entry);
        if (handBack != null) {
            return finish(key, entry, Ending.HANDED_BACK, handBack);
        }
        prepareRun(entry.exchange);
        Run run = new Run(key, entry);
        try {
            processor.process(entry.exchange, run);
        } catch (Throwable e) {
            // an Error escaped a step: what Camel left queued on this thread runs now, seeing the exchange failed
            entry.exchange.setException(e instanceof Exception ex ? ex : new HandedBack(e.toString()));
            noticeFatal(e);
            drainReactiveWork(entry.exchange);
            run.done(true);
        }
        return run.afterwards();
    }

    /** What the route's end decides: done, again later, or failed (its key's waiting exchanges go back with it). */
    private Key afterRun(Key key, Entry entry) {
        Exchange exchange = entry.exchange;
        Long retryAfter = exchange.getMessage().getHeader(KeyedQueueConstants.RETRY_AFTER, Long.class);
        exchange.getMessage().removeHeader(KeyedQueueConstants.RETRY_AFTER);
        if (exchange.isFailed()) {
            noticeFatal(exchange.getException());
            return finish(key, entry, Ending.FAILED, null);
        }
        if (retryAfter == null) {
            return finish(key, entry, Ending.DONE, null);
        }
        if (entry.superseded.get()) {
            return finish(key, entry, Ending.SUPERSEDED, null);
        }
        long delay = retryAfter;
        lock.lock();
        try {
            if (stopping) {
                return finishLocked(key, entry, Ending.HANDED_BACK, "the service is stopping");
            }
            running--;
            if (delay <= 0) {
                ready.addFirst(key);
            } else {
                delayed.add(entry);
                entry.wait = timer.schedule(() -> retryDue(key, entry), delay, TimeUnit.MILLISECONDS);
                // its key's exchanges no longer count against readAhead
                roomFreed.signalAll();
            }
            return firstStartable();
        } finally {
            lock.unlock();
        }
    }

    private void retryDue(Key key, Entry entry) {
        lock.lock();
        try {
            if (entry.wait == null || key.current != entry) {
                return;
            }
            entry.wait = null;
            delayed.remove(entry);
            ready.addFirst(key);
        } finally {
            lock.unlock();
        }
        dispatch();
    }

    private Key finish(Key key, Entry entry, Ending ending, String why) {
        lock.lock();
        try {
            return finishLocked(key, entry, ending, why);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: the entry ends (its completions run off the lock, through {@link #end}); a failed or handed back
     * one takes its key's waiting exchanges back with it. Returns the next key this thread runs, if any.
     */
    private Key finishLocked(Key key, Entry entry, Ending ending, String why) {
        List<Entry> takenBack = List.of();
        if (ending == Ending.FAILED || ending == Ending.HANDED_BACK) {
            takenBack = new ArrayList<>(key.waiting);
            takenBack.addAll(key.behind);
            key.waiting.clear();
            key.behind.clear();
        }
        if (ending == Ending.FAILED) {
            LOG.warn("liveoddsQueue:{}: an exchange of key {} failed ({}); it and the {} queued behind it go back to their"
                    + " sources", name, key.id, entry.exchange.getException(), takenBack.size());
        }
        key.current = key.waiting.poll();
        if (key.current != null) {
            ready.add(key);
        } else if (key.hold == null) {
            keys.remove(key.id, key);
        }
        running--;
        Key next = firstStartable();
        List<Entry> back = takenBack;
        lock.unlock();
        try {
            end(entry, ending, why);
            back.forEach(e -> end(e, Ending.HANDED_BACK, "an earlier message of its key was handed back to its source"));
        } finally {
            lock.lock();
        }
        return next;
    }

    /** Under the lock: one ready key for this thread to run next, and the others started on the pool. */
    private Key firstStartable() {
        List<Key> start = startable();
        if (start.isEmpty()) {
            return null;
        }
        for (int i = 1; i < start.size(); i++) {
            Key other = start.get(i);
            lock.unlock();
            try {
                submit(other);
            } finally {
                lock.lock();
            }
        }
        return start.get(0);
    }

    /** The exchange's end: its place is free, its source's completions run, and its producer is told. */
    private void end(Entry entry, Ending ending, String why) {
        if (!entry.ended.compareAndSet(false, true)) {
            return;
        }
        Exchange exchange = entry.exchange;
        switch (ending) {
            case SUPERSEDED -> {
                exchange.setException(null);
                exchange.setProperty(KeyedQueueConstants.SUPERSEDED, true);
            }
            case HANDED_BACK -> exchange.setException(new HandedBack(why));
            default -> {
                // DONE and FAILED end as the route left the exchange
            }
        }
        lock.lock();
        try {
            held--;
            heldBytes -= entry.weight;
            // a light exchange may fit where the first one waiting does not
            roomFreed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            UnitOfWorkHelper.doneSynchronizations(exchange, entry.completions);
        } finally {
            if (entry.producer != null) {
                entry.producer.done(false);
            }
        }
    }

    private String handBackReason(Entry entry) {
        if (stopping) {
            return "the service is stopping";
        }
        return isWithdrawn(entry.exchange) ? "withdrawn by its source" : null;
    }

    private boolean isWithdrawn(Exchange exchange) {
        Predicate withdrawn = handBackWhen;
        try {
            return withdrawn != null && withdrawn.matches(exchange);
        } catch (RuntimeException e) {
            LOG.warn("liveoddsQueue:{} could not ask whether an exchange was withdrawn", name, e);
            return false;
        }
    }

    /** Exchanges waiting out a retry delay whose source withdrew them go back at once. */
    private void checkWithdrawn() {
        List<Entry> waiting;
        lock.lock();
        try {
            waiting = new ArrayList<>(delayed);
        } finally {
            lock.unlock();
        }
        for (Entry entry : waiting) {
            if (isWithdrawn(entry.exchange)) {
                endDelayed(entry, Ending.HANDED_BACK, "withdrawn by its source");
            }
        }
    }

    /** Ends an exchange that waits out a retry delay, if it still does. */
    private void endDelayed(Entry entry, Ending ending, String why) {
        Key key;
        lock.lock();
        try {
            if (entry.wait == null || !entry.wait.cancel(false)) {
                return;
            }
            entry.wait = null;
            delayed.remove(entry);
            key = keys.get(entry.key);
            if (key == null || key.current != entry) {
                return;
            }
            running++;
            Key next = finishLocked(key, entry, ending, why);
            if (next != null) {
                lock.unlock();
                try {
                    submit(next);
                } finally {
                    lock.lock();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Shutdown: nothing starts any more; every exchange still waiting for its turn or out a retry delay goes back to its
     * source now. Those running finish their run (and go back if they ask to run again).
     */
    void stop() {
        List<Entry> back = new ArrayList<>();
        List<Entry> waits;
        lock.lock();
        try {
            stopping = true;
            roomFreed.signalAll();
            keys.values().forEach(key -> {
                back.addAll(key.waiting);
                back.addAll(key.behind);
                key.waiting.clear();
                key.behind.clear();
            });
            // keys whose turn had come but that no thread runs yet
            for (Key key : ready) {
                back.add(key.current);
                key.current = null;
                if (key.hold == null) {
                    keys.remove(key.id, key);
                }
            }
            ready.clear();
            waits = new ArrayList<>(delayed);
        } finally {
            lock.unlock();
        }
        waits.forEach(e -> endDelayed(e, Ending.HANDED_BACK, "the service is stopping"));
        back.forEach(e -> end(e, Ending.HANDED_BACK, "the service is stopping"));
        if (!back.isEmpty() || !waits.isEmpty()) {
            LOG.info("liveoddsQueue:{}: {} queued exchanges handed back to their sources", name, back.size() + waits.size());
        }
    }

    /** Paused: no run starts; unpaused: the ready keys start again. */
    void pauseRuns(boolean pause) {
        lock.lock();
        try {
            paused = pause;
        } finally {
            lock.unlock();
        }
        if (!pause) {
            dispatch();
        }
    }

    /** The consumer resumed after a suspension: the queue takes exchanges again. */
    void resume() {
        lock.lock();
        try {
            stopping = false;
        } finally {
            lock.unlock();
        }
    }

    /** The consumer is gone: the queue takes exchanges again once a consumer attaches. */
    void detach() {
        lock.lock();
        try {
            processor = null;
            if (withdrawnCheck != null) {
                withdrawnCheck.cancel(false);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Exchanges running their route now (Camel's graceful shutdown waits for them). */
    int running() {
        return running;
    }

    /** Exchanges held: waiting, running, or waiting out a retry delay. */
    int held() {
        return held;
    }

    /** When the oldest exchange still held came in, or null. */
    Instant oldest() {
        lock.lock();
        try {
            long oldest = Long.MAX_VALUE;
            for (Key key : keys.values()) {
                Entry head = key.current != null ? key.current : key.waiting.isEmpty() ? key.behind.peek() : key.waiting.peek();
                if (head != null) {
                    oldest = Math.min(oldest, head.since);
                }
            }
            return oldest == Long.MAX_VALUE ? null : Instant.ofEpochMilli(oldest);
        } finally {
            lock.unlock();
        }
    }

    /** The first {@link Error} a route met on the queue's threads, or null. */
    Error fatalError() {
        return fatal;
    }

    private void noticeFatal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Error error) {
                if (fatal == null) {
                    fatal = error;
                    LOG.error("liveoddsQueue:{} met {}; the exchange went back to its source", name, error, error);
                }
                return;
            }
        }
    }

    private void drainReactiveWork(Exchange exchange) {
        while (true) {
            try {
                if (!reactive.executeFromQueue()) {
                    return;
                }
            } catch (Throwable again) {
                exchange.setException(again instanceof Exception ex ? ex : new HandedBack(again.toString()));
            }
        }
    }

    /** What a run left that is no part of the next one. */
    private static void prepareRun(Exchange exchange) {
        exchange.setException(null);
        // the error handler's marks of the last run: with FAILURE_HANDLED left, it would take the next failure as handled
        exchange.removeProperty(ExchangePropertyKey.EXCEPTION_CAUGHT);
        exchange.removeProperty(ExchangePropertyKey.EXCEPTION_HANDLED);
        exchange.removeProperty(ExchangePropertyKey.FAILURE_ENDPOINT);
        exchange.removeProperty(ExchangePropertyKey.FAILURE_ROUTE_ID);
        exchange.removeProperty(ExchangePropertyKey.UNIT_OF_WORK_EXHAUSTED);
        exchange.setRouteStop(false);
        exchange.setRollbackOnly(false);
        exchange.setRollbackOnlyLast(false);
        exchange.getExchangeExtension().setErrorHandlerHandled(null);
        exchange.getExchangeExtension().setRedeliveryExhausted(false);
        exchange.getExchangeExtension().setFailureHandled(false);
    }

    /** The copy a producer queues: the source's completions move to it, so they run when it ends. */
    static Exchange copyOf(Exchange exchange) {
        return ExchangeHelper.createCorrelatedCopy(exchange, true, true);
    }

    private enum Ending { DONE, FAILED, SUPERSEDED, HANDED_BACK }

    private static final class Key {
        private final Object id;
        private final ArrayDeque<Entry> waiting = new ArrayDeque<>(2);
        /** Sent since its hold was taken without it: they wait until it is closed. */
        private final ArrayDeque<Entry> behind = new ArrayDeque<>(0);
        private Entry current;
        private KeyHold hold;

        Key(Object id) {
            this.id = id;
        }
    }

    private static final class Entry {
        private final Object key;
        private final Exchange exchange;
        private final AsyncCallback producer;
        /** The bytes it holds ({@link KeyedQueueConstants#WEIGHT}). */
        private final long weight;
        private final List<Synchronization> completions;
        private final boolean supersedes;
        private final boolean supersedable;
        private final long since = System.currentTimeMillis();
        private final AtomicBoolean ended = new AtomicBoolean();
        private final AtomicBoolean superseded = new AtomicBoolean();
        /** Under the lock: its retry delay, while it waits one out. */
        private ScheduledFuture<?> wait;

        Entry(Object key, Exchange exchange, AsyncCallback producer, long weight, List<Synchronization> completions,
              boolean supersedes, boolean supersedable) {
            this.key = key;
            this.weight = weight;
            this.exchange = exchange;
            this.producer = producer;
            this.completions = completions;
            this.supersedes = supersedes;
            this.supersedable = supersedable;
            exchange.setProperty(KeyedQueueConstants.SUPERSEDED_MARK, superseded);
        }
    }

    /** One run of the route: its end is seen once, on this thread when it ends synchronously. */
    private final class Run implements AsyncCallback {
        private final Key key;
        private final Entry entry;
        private final AtomicBoolean called = new AtomicBoolean();
        private final Thread runner = Thread.currentThread();
        /** Written by the runner only: the route's process call has returned. */
        private boolean returned;
        private volatile boolean here;

        Run(Key key, Entry entry) {
            this.key = key;
            this.entry = entry;
        }

        @Override
        public void done(boolean doneSync) {
            if (!called.compareAndSet(false, true)) {
                return;
            }
            if (Thread.currentThread() == runner && !returned) {
                here = true;
                return;
            }
            Key next = afterRun(key, entry);
            if (next != null) {
                submit(next);
            }
        }

        /** After the route returned: its end, when it came on this thread, and the next key to run here. */
        Key afterwards() {
            returned = true;
            return here ? afterRun(key, entry) : null;
        }
    }
}
