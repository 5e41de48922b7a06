package com.liveodds.push.delivery;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerThreads;
import io.micrometer.core.instrument.Counter;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.ExchangeHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts pushes from every source and keeps each match in order, and nothing else: one queue per match, at most one
 * push of a match in delivery at a time, every match independent of the others. A push's turn runs the push route
 * ({@code direct:liveodds-push}; heartbeats {@code direct:liveodds-heartbeat}) on its exchange.
 * <p>
 * A source that hands over InOnly (file, JMS, Kafka) is free again at once: the push travels on a copy that takes over
 * the exchange's completions (as seda does), so the source acknowledges when the push ends. An InOut caller (the HTTP
 * source, replay) gets its exchange back when the push ends. At most {@code queue-size} pushes wait at once: past
 * that, accepting blocks the source, so a partner that is down slows the sources instead of filling the heap.
 * <p>
 * A push that ends handed back (shutdown, withdrawn, failed) takes the pushes queued behind it back with it, so that
 * none of them can overtake it when the source delivers them again.
 * <p>
 * An {@code odds} snapshot supersedes the odds of its match queued before it (contract 17): those waiting are taken
 * out of the queue and end at once, superseded (their sources acknowledge them, the partner never sees them); the one
 * in delivery is marked, so that it makes no further attempt. Settlements and rollbacks keep their place.
 */
public class MatchQueues extends AsyncProcessorSupport implements CamelContextAware {

    /** Exchange variable: the push is to be handed back to its source without an attempt, for this reason. */
    public static final String HAND_BACK = "handBack";
    private static final Logger LOG = LoggerFactory.getLogger(MatchQueues.class);
    private static final String ODDS = "odds";
    private static final JsonFactory JSON = new JsonFactory();

    private final LiveMatches liveMatches;
    private final ShutdownGate gate;
    private final Map<String, Queue> queues = new ConcurrentHashMap<>();
    private String pushUri = "direct:liveodds-push";
    private String heartbeatUri = "direct:liveodds-heartbeat";
    /** Starts the next push of a match once the previous one ended, off the thread that ended it. */
    private volatile ExecutorService next;
    private volatile Semaphore room = new Semaphore(10_000);
    private CamelContext camelContext;
    private volatile Meters meters;
    private volatile AsyncProcessor pushRoute;
    private volatile AsyncProcessor heartbeatRoute;
    private volatile Error fatal;
    private volatile boolean supersede = true;
    private volatile Counter superseded;

    public MatchQueues(LiveMatches liveMatches, ShutdownGate gate) {
        this.liveMatches = liveMatches;
        this.gate = gate;
        gate.onStop(this::handBackQueued);
    }

    /** Pushes that may wait for delivery at once, all matches together; {@code 10000} by default. */
    public void setQueueSize(int queueSize) {
        if (queueSize < 1) {
            throw new IllegalArgumentException("liveodds.delivery.queue-size must be at least 1, not " + queueSize);
        }
        this.room = new Semaphore(queueSize);
    }

    /** Where a push's turn runs ({@code direct:liveodds-push}, a partner's own {@code direct:liveodds-push-N}). */
    public void setPushUri(String pushUri) {
        this.pushUri = pushUri;
    }

    /** Where a heartbeat's turn runs ({@code direct:liveodds-heartbeat}, or {@code direct:liveodds-heartbeat-N}). */
    public void setHeartbeatUri(String heartbeatUri) {
        this.heartbeatUri = heartbeatUri;
    }

    /** {@code liveodds.delivery.supersede}: whether a snapshot supersedes the odds queued before it (default true). */
    public void setSupersede(boolean supersede) {
        this.supersede = supersede;
    }

    /** Accepts the push in the exchange body into the queue of its match. */
    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Push push = exchange.getMessage().getBody(Push.class);
        if (push == null) {
            exchange.setException(new IllegalArgumentException("no push in the exchange"));
            callback.done(true);
            return true;
        }
        boolean snapshot = supersede && isSnapshot(push);
        if (snapshot) {
            // frees the places of the odds it supersedes first: a queue full of them would otherwise never let it in
            supersedeEarlier(push);
        }
        if (!push.isHeartbeat()) {
            try {
                awaitRoom();
            } catch (DeliveryInterruptedException e) {
                exchange.setException(e);
                callback.done(true);
                return true;
            }
            liveMatches.enqueued(push.matchId());
        }
        if (ExchangeHelper.isOutCapable(exchange)) {
            enqueue(new Entry(push, exchange, callback), snapshot);
            return false;
        }
        Exchange copy = ExchangeHelper.createCorrelatedCopy(exchange, true, true);
        enqueue(new Entry(push, copy, doneSync -> { }), snapshot);
        callback.done(true);
        return true;
    }

    /**
     * As {@link #process} for an InOut caller that must not wait for this partner (the HTTP source with several
     * partners): false, and the push not taken, when every place of the queues is taken; the callback is called once
     * the push ends otherwise.
     */
    boolean offer(Exchange exchange, AsyncCallback callback) {
        Push push = exchange.getMessage().getBody(Push.class);
        boolean snapshot = supersede && isSnapshot(push);
        if (snapshot) {
            supersedeEarlier(push);
        }
        if (!room.tryAcquire()) {
            return false;
        }
        liveMatches.enqueued(push.matchId());
        enqueue(new Entry(push, exchange, callback), snapshot);
        return true;
    }

    private void awaitRoom() {
        try {
            while (!room.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                if (gate.isStopping()) {
                    throw new DeliveryInterruptedException("the service is stopping");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DeliveryInterruptedException("interrupted while waiting for room in the delivery queues");
        }
    }

    /** Queues the entry; a snapshot supersedes, in the same step, the odds that came in while it waited for room. */
    private void enqueue(Entry entry, boolean snapshot) {
        while (true) {
            Queue queue = queues.computeIfAbsent(entry.push.matchId(), id -> new Queue());
            Superseded superseded = Superseded.NONE;
            boolean first;
            synchronized (queue) {
                if (queue.removed) {
                    continue;
                }
                first = queue.current == null;
                if (first) {
                    becomesCurrent(queue, entry);
                } else {
                    if (snapshot) {
                        superseded = takeSuperseded(queue);
                    }
                    queue.waiting.add(entry);
                }
            }
            if (first) {
                start(queue, entry);
            }
            supersede(entry.push, superseded);
            return;
        }
    }

    private void supersedeEarlier(Push snapshot) {
        Queue queue = queues.get(snapshot.matchId());
        if (queue == null) {
            return;
        }
        Superseded superseded;
        synchronized (queue) {
            if (queue.current == null) {
                return;
            }
            superseded = takeSuperseded(queue);
        }
        supersede(snapshot, superseded);
    }

    /** Under the queue's lock: its push's turn has come; its delivery state begins here so that it can be superseded. */
    private static void becomesCurrent(Queue queue, Entry entry) {
        queue.current = entry;
        DeliveryState.of(entry.exchange, Instant.now());
    }

    private static DeliveryState state(Entry entry) {
        return entry.exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
    }

    /**
     * Under the queue's lock, for a snapshot: the odds waiting in the queue, taken out of it (settlements, rollbacks,
     * heartbeats stay in place), and the state of the push in delivery if that is odds too.
     */
    private static Superseded takeSuperseded(Queue queue) {
        List<Entry> odds = new ArrayList<>();
        queue.waiting.removeIf(waiter -> isOdds(waiter.push) && odds.add(waiter));
        DeliveryState current = isOdds(queue.current.push) ? state(queue.current) : null;
        return new Superseded(current != null && !current.isSuperseded() ? current : null, odds);
    }

    /**
     * The snapshot's earlier odds: those that were waiting end at once, each through the push route (which makes no
     * attempt), so that their sources' completions run as for any other push; the one in delivery is marked, off
     * this thread, because it may be waiting out a back-off that then ends and starts the match's next push.
     */
    private void supersede(Push snapshot, Superseded superseded) {
        List<Entry> waiting = superseded.waiting;
        DeliveryState inDelivery = superseded.inDelivery;
        for (Entry entry : waiting) {
            DeliveryState.of(entry.exchange, Instant.now()).supersede();
            run(entry, doneSync -> settle(entry));
        }
        if (inDelivery != null) {
            offThisThread(inDelivery::supersede);
        }
        if (!waiting.isEmpty() || inDelivery != null) {
            LOG.info("Snapshot {} supersedes {} queued odds{}", snapshot, waiting.size(),
                    inDelivery != null ? " and the one in delivery" : "");
        }
    }

    private static boolean isOdds(Push push) {
        return ODDS.equals(push.messageType());
    }

    /** An {@code odds} message whose top-level {@code odds_type} is {@code snapshot}; reads no further than that. */
    static boolean isSnapshot(Push push) {
        if (!isOdds(push)) {
            return false;
        }
        try (JsonParser parser = JSON.createParser(push.json())) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if ("odds_type".equals(field)) {
                    return value == JsonToken.VALUE_STRING && "snapshot".equals(parser.getText());
                }
                parser.skipChildren();
            }
            return false;
        } catch (IOException e) {
            return false;
        }
    }

    private void start(Queue queue, Entry entry) {
        if (gate.isStopping()) {
            entry.exchange.setVariable(HAND_BACK, "the service is stopping");
        }
        run(entry, doneSync -> ended(queue, entry));
    }

    /**
     * Runs the entry's route; {@code after} runs once when it ends, whether the route ends it or an Error leaves it
     * stranded ({@link PartnerThreads#STRANDED}: a partner thread that met an Error ends it, in case no step will).
     */
    private void run(Entry entry, AsyncCallback after) {
        AtomicBoolean ended = new AtomicBoolean();
        AsyncCallback once = doneSync -> {
            if (ended.compareAndSet(false, true)) {
                after.done(doneSync);
            }
        };
        Consumer<Throwable> stranded = error -> {
            if (!ended.get()) {
                entry.exchange.setException(error);
                once.done(false);
            }
        };
        entry.exchange.setProperty(PartnerThreads.STRANDED, stranded);
        try {
            AsyncProcessor route = entry.push.isHeartbeat() ? heartbeatRoute() : pushRoute();
            route.process(entry.exchange, once);
        } catch (Throwable e) {
            entry.exchange.setException(e);
            once.done(false);
        }
    }

    /**
     * An {@link Error} (out of memory, stack overflow) in delivery leaves the JVM in doubt: the push was handed back
     * and the match goes on, but liveness turns DOWN so that the service is restarted; nothing is lost by that.
     */
    private void noticeFatal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Error error) {
                if (fatal == null) {
                    fatal = error;
                    LOG.error("Delivery hit {}; liveness is DOWN from now on so that the service gets restarted", error, error);
                }
                return;
            }
        }
    }

    /** The first {@link Error} delivery met, or null: while there is one, the liveness check {@code delivery} is DOWN. */
    public Error fatalError() {
        return fatal;
    }

    /** The push route is done with the entry: bookkeeping, then the next push of the match. */
    private void ended(Queue queue, Entry entry) {
        boolean handedBack = entry.exchange.isFailed();
        if (handedBack) {
            noticeFatal(entry.exchange.getException());
        }
        settle(entry);
        List<Entry> takenBack = List.of();
        Entry following;
        synchronized (queue) {
            if (handedBack && !queue.waiting.isEmpty()) {
                takenBack = new ArrayList<>(queue.waiting);
                queue.waiting.clear();
            }
            following = queue.waiting.poll();
            queue.current = following;
            if (following != null) {
                becomesCurrent(queue, following);
            } else if (queues.remove(entry.push.matchId(), queue)) {
                queue.removed = true;
            }
        }
        handBack(takenBack, "an earlier message of its match was handed back to its source");
        if (following != null) {
            offThisThread(() -> start(queue, following));
        }
    }

    /** Frees the entry's room and tells its caller; never throws, so a match can never be left stuck. */
    private void settle(Entry entry) {
        try {
            if (entry.push.isHeartbeat()) {
                liveMatches.heartbeatFinished(entry.push.matchId());
            } else {
                room.release();
                DeliveryState state = state(entry);
                liveMatches.finished(entry.push.matchId(), state != null && state.isDelivered());
                if (state != null && state.outcome() == DeliveryState.Outcome.SUPERSEDED) {
                    supersededCounter().increment();
                }
            }
            entry.callback.done(false);
        } catch (Throwable e) {
            LOG.warn("Completing {} failed", entry.push, e);
        }
    }

    /**
     * Ends pushes without an attempt: they run through the push route, which hands them back, so their sources'
     * completions run exactly as for any other push.
     */
    private void handBack(List<Entry> entries, String why) {
        for (Entry entry : entries) {
            entry.exchange.setVariable(HAND_BACK, why);
            run(entry, doneSync -> settle(entry));
        }
    }

    /** Shutdown: every push still waiting for its turn goes back to its source. */
    private void handBackQueued() {
        List<Entry> takenBack = new ArrayList<>();
        queues.values().forEach(queue -> {
            synchronized (queue) {
                takenBack.addAll(queue.waiting);
                queue.waiting.clear();
            }
        });
        handBack(takenBack, "the service is stopping");
        if (!takenBack.isEmpty()) {
            LOG.info("Shutdown: {} queued pushes handed back to their sources", takenBack.size());
        }
    }

    private Counter supersededCounter() {
        Counter counter = superseded;
        if (counter == null) {
            Meters partner = Meters.orOf(meters, camelContext);
            superseded = counter = DeliveryMeters.superseded(partner.registry(), partner.tags());
        }
        return counter;
    }

    /** When the oldest push still waiting or in delivery came in, or null when none is. */
    public Instant oldestUndelivered() {
        Instant oldest = null;
        for (Queue queue : queues.values()) {
            Instant first;
            synchronized (queue) {
                Entry head = queue.current != null && !queue.current.push.isHeartbeat() ? queue.current : queue.waiting.peek();
                first = head == null ? null : head.push.receivedAt();
            }
            if (first != null && (oldest == null || first.isBefore(oldest))) {
                oldest = first;
            }
        }
        return oldest;
    }

    /** On a thread of the bean's own; on this one when the bean is not running (stopped, or never started). */
    private void offThisThread(Runnable task) {
        ExecutorService n = next;
        try {
            if (n != null) {
                n.execute(task);
                return;
            }
        } catch (RejectedExecutionException stopped) {
            // run below
        }
        task.run();
    }

    /** Threads come with {@code start()}: a copy of the bean that is made and never started (camel-main) costs nothing. */
    @Override
    protected void doStart() {
        next = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "liveodds-delivery");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    protected void doStop() {
        ExecutorService n = next;
        if (n != null) {
            n.shutdown();
        }
    }

    private AsyncProcessor pushRoute() {
        AsyncProcessor route = pushRoute;
        if (route == null) {
            pushRoute = route = producer(pushUri);
        }
        return route;
    }

    private AsyncProcessor heartbeatRoute() {
        AsyncProcessor route = heartbeatRoute;
        if (route == null) {
            heartbeatRoute = route = producer(heartbeatUri);
        }
        return route;
    }

    private AsyncProcessor producer(String uri) {
        try {
            org.apache.camel.Producer producer = camelContext.getEndpoint(uri).createAsyncProducer();
            producer.start();
            return AsyncProcessorConverterHelper.convert(producer);
        } catch (Exception e) {
            throw new IllegalStateException("cannot send to " + uri, e);
        }
    }

    /** The meter registry of the bundle ({@code liveoddsMeters}, its partner's view). */
    public void setMeters(Meters meters) {
        this.meters = meters;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    /** The pushes of one match: the one in delivery, and those waiting behind it in arrival order. */
    private static final class Queue {
        private final ArrayDeque<Entry> waiting = new ArrayDeque<>();
        private Entry current;
        private boolean removed;
    }

    private record Entry(Push push, Exchange exchange, AsyncCallback callback) {
    }

    /** What a snapshot supersedes in its match's queue: the push in delivery (or null), and those waiting. */
    private record Superseded(DeliveryState inDelivery, List<Entry> waiting) {
        static final Superseded NONE = new Superseded(null, List.of());
    }
}
