package com.liveodds.push.delivery;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerPauses;
import com.liveodds.push.queue.KeyHold;
import com.liveodds.push.queue.KeyedQueueConstants;
import com.liveodds.push.queue.KeyedQueueEndpoint;
import com.liveodds.push.queue.QueueFull;
import io.micrometer.core.instrument.Counter;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Message;
import org.apache.camel.Producer;
import org.apache.camel.spi.ReactiveExecutor;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.DefaultMessage;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.support.SynchronizationAdapter;
import org.apache.camel.support.service.ServiceHelper;

/**
 * Hands an accepted push (or a heartbeat) to the queue of each partner that has its match booked (contract section
 * 16): {@code liveoddsQueue:liveodds-push[-N]}, keyed by match, the queue the partner's push route consumes. It marks
 * what the queue reads (the key; odds are supersedable, an odds snapshot supersedes) and keeps the partner's count of
 * its matches' pushes, waiting and done ({@link LiveMatches}, the superseded counter) as each push ends.
 * <p>
 * A source instantiated per partner (its own Kafka group, JMS queue or inbox progress) names its partner in the exchange
 * variable {@value #PARTNER}: the push goes to that partner's queue only. A source shared by all partners (the HTTP
 * source, a replay of a rejected message) names none: each booked partner gets the push, and the caller gets its
 * exchange back once every one of them has delivered, superseded or dead-lettered it (failed, so that the source keeps
 * it, if any partner handed it back), with each partner's outcome in {@link PushOutcome#BY_PARTNER}. A source that
 * shares its message out itself ({@link SourceHandover.Shared}: the inbox read once for several partners) names the
 * partners that take it now: each of them that booked its match gets a copy in its queue with the source's handover of
 * that copy, and the caller waits for none of them. A push for no booked partner ends at once, counted as not booked
 * ({@code liveodds_messages_not_booked_total}).
 * <p>
 * A caller that keeps no backlog (variable {@value #NO_BACKLOG}: the HTTP source, whose producer waits on its
 * connection) is never held by one partner: a partner that is down (readiness) or whose queue is full gets the push
 * dead-lettered for it at once ({@code direct:liveodds-dead-letter}), replayable to it, while the others
 * deliver it; a push already queued for a partner that goes down is dead-lettered at its next failed attempt
 * ({@link PartnerPushes#verdict}) instead of retried for up to {@code liveodds.delivery.max-elapsed}. A paused partner
 * (contract 24) is sent nothing: its queue holds what its source hands over, and a caller that waits for its push
 * (the HTTP source, a replay of a rejected message to every partner) gets it dead-lettered for that partner at once.
 */
public class PartnerDeliveries extends AsyncProcessorSupport implements CamelContextAware {

    /** Exchange variable: the name of the partner a per-partner source delivers to. */
    public static final String PARTNER = "liveoddsPartner";
    /** Exchange variable, true: the caller keeps no backlog of its own (see above). */
    public static final String NO_BACKLOG = "liveoddsNoBacklog";
    static final String DEAD_LETTER_AT_ONCE = "direct:liveodds-dead-letter";

    private final Map<String, Partner> partners = new LinkedHashMap<>();
    private CamelContext context;
    private PartnerPauses pauses;
    private volatile AsyncProcessor deadLetterAtOnce;

    /**
     * Adds a partner ({@code name} empty for the single partner of {@code liveodds.partner.*}) whose push route consumes
     * {@code queueUri}.
     */
    public void add(String name, String queueUri, Booking booking, PartnerHealth health, PartnerPushes pushes,
                    LiveMatches liveMatches, Meters meters) {
        partners.put(name, new Partner(name, queueUri, booking, health, pushes, liveMatches, meters));
    }

    /** Which partners are paused. */
    public void setPauses(PartnerPauses pauses) {
        this.pauses = pauses;
    }

    /**
     * Whether the exchange reports for the upstream as a whole what concerns the message itself (a rejection): a source
     * read per partner sees each message once per partner, and only its route of the first partner of
     * {@code liveodds.partners} reports, so a rejected message is dead-lettered and counted once; a source shared by
     * all partners always reports.
     */
    public boolean speaksForUpstream(Exchange exchange) {
        String name = exchange.getVariable(PARTNER, String.class);
        return name == null || partners.isEmpty() || partners.keySet().iterator().next().equals(name);
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Push push = exchange.getMessage().getBody(Push.class);
        if (push == null) {
            exchange.setException(new IllegalArgumentException("no push in the exchange"));
            callback.done(true);
            return true;
        }
        SourceHandover.Shared shared = exchange.getVariable(SourceHandover.Shared.VARIABLE, SourceHandover.Shared.class);
        if (shared != null) {
            return shareOut(exchange, push, shared, callback);
        }
        String name = exchange.getVariable(PARTNER, String.class);
        if (name != null || partners.size() == 1) {
            Partner partner = name != null ? partners.get(name) : partners.values().iterator().next();
            if (partner == null) {
                exchange.setException(new IllegalStateException("no partner named " + name));
                callback.done(true);
                return true;
            }
            if (!push.isHeartbeat() && !partner.booking.isBooked(push.matchId())) {
                partner.notBooked().increment();
                callback.done(true);
                return true;
            }
            if (Boolean.TRUE.equals(exchange.getVariable(NO_BACKLOG, Boolean.class)) && isPaused(partner)) {
                return deadLetterAtOnce(exchange, partner, pausedReason(partner), callback);
            }
            return partner.enqueue(exchange, push, false, callback);
        }
        return fanOut(exchange, push, callback);
    }

    /**
     * Each partner the source shares the message out to that booked its match gets a copy, made here, as it joins that
     * partner's queue; the caller waits for none of them. A full queue refuses its copy at once (the source hears it
     * handed back and offers the message to that partner again later), so no partner holds the caller or the others.
     */
    private boolean shareOut(Exchange exchange, Push push, SourceHandover.Shared shared, AsyncCallback callback) {
        for (String name : shared.partners()) {
            Partner partner = partners.get(name);
            if (!partner.booking.isBooked(push.matchId())) {
                partner.notBooked().increment();
                continue;
            }
            Exchange copy = copyFor(exchange, name, ExchangePattern.InOnly);
            copy.removeVariable(SourceHandover.Shared.VARIABLE);
            SourceHandover.attach(copy, shared.forPartner(name));
            partner.enqueue(copy, push, true, doneSync -> {
                // queued, or refused and handed back to the source through its handover
            });
        }
        callback.done(true);
        return true;
    }

    /** Every booked partner gets a copy; the caller waits for all of them (the HTTP source and replay wait anyway). */
    private boolean fanOut(Exchange exchange, Push push, AsyncCallback callback) {
        Map<String, PushOutcome> outcomes = new LinkedHashMap<>();
        List<Partner> booked = new ArrayList<>();
        for (Partner partner : partners.values()) {
            if (partner.booking.isBooked(push.matchId())) {
                booked.add(partner);
                outcomes.put(partner.name, null);
            } else {
                partner.notBooked().increment();
                outcomes.put(partner.name, ended(push, DeliveryState.Outcome.NOT_BOOKED, DeliveryState.NOT_BOOKED_REASON));
            }
        }
        exchange.setVariable(PushOutcome.BY_PARTNER, outcomes);
        if (booked.isEmpty()) {
            callback.done(true);
            return true;
        }
        boolean noBacklog = Boolean.TRUE.equals(exchange.getVariable(NO_BACKLOG, Boolean.class));
        ReactiveExecutor reactive = exchange.getContext().getCamelContextExtension().getReactiveExecutor();
        AtomicInteger left = new AtomicInteger(booked.size());
        AtomicReference<Throwable> handedBack = new AtomicReference<>();
        for (Partner partner : booked) {
            Exchange copy = copyFor(exchange, partner.name, ExchangePattern.InOut);
            copy.removeVariable(PushOutcome.BY_PARTNER);
            AsyncCallback settled = doneSync -> {
                if (copy.getException() != null) {
                    handedBack.compareAndSet(null, copy.getException());
                }
                PushOutcome outcome = PushOutcome.of(copy);
                synchronized (outcomes) {
                    outcomes.put(partner.name, outcome != null ? outcome
                            : ended(push, DeliveryState.Outcome.HANDED_BACK, "handed back to its source"));
                }
                if (left.decrementAndGet() == 0) {
                    if (handedBack.get() != null) {
                        exchange.setException(handedBack.get());
                    }
                    callback.done(false);
                }
            };
            copy.setVariable(PartnerPushes.DEAD_LETTER_WHEN_DOWN, noBacklog);
            if (isPaused(partner)) {
                // the caller waits for every partner: a paused one would hold it until its resume
                deadLetterAtOnce(copy, partner, pausedReason(partner), settled);
            } else if (!noBacklog) {
                // queued now, not behind the caller's work: a caller that then blocks for its answer (replay) would hold
                // the copies queued on its own thread
                reactive.scheduleSync(() -> partner.enqueue(copy, push, false, settled));
            } else if (!partner.health.isUp()) {
                deadLetterAtOnce(copy, partner, "partner " + partner.name + " is down (readiness) and the source keeps no backlog", settled);
            } else {
                partner.enqueue(copy, push, true, doneSync -> {
                    if (copy.getException() instanceof QueueFull) {
                        copy.setException(null);
                        deadLetterAtOnce(copy, partner, "the delivery queues of partner " + partner.name
                                + " are full (liveodds.delivery.queue-size) and the source keeps no backlog", settled);
                    } else {
                        settled.done(doneSync);
                    }
                });
            }
        }
        return false;
    }

    /**
     * A partner's copy of the caller's exchange, with a unit of work of its own: exchange.copy() would share the
     * caller's, and the partner's queue would take over the caller's completions (a file's, an HTTP answer's) with it.
     */
    private static Exchange copyFor(Exchange exchange, String partner, ExchangePattern pattern) {
        Exchange copy = ExchangeHelper.createCorrelatedCopy(exchange, false, true);
        copy.setPattern(pattern);
        copy.setVariable(PARTNER, partner);
        return copy;
    }

    private boolean isPaused(Partner partner) {
        return pauses != null && pauses.isPaused(partner.name);
    }

    private static String pausedReason(Partner partner) {
        return "partner " + (partner.name.isEmpty() ? "" : partner.name + " ") + "is paused (POST /admin/partners/{name}/resume)"
                + " and the source keeps no backlog";
    }

    /** The push is dead-lettered for this partner now, without an attempt; a replay brings it to that partner. */
    private boolean deadLetterAtOnce(Exchange copy, Partner partner, String reason, AsyncCallback settled) {
        DeliveryState state = new DeliveryState(copy.getMessage().getBody(Push.class), Instant.now());
        state.end(DeliveryState.Outcome.DEAD_LETTERED, reason);
        copy.setVariable(DeliveryState.VARIABLE, state);
        partner.pushes.deadLetteredAtOnce(state.getPush(), reason);
        try {
            return deadLetterAtOnce().process(copy, settled);
        } catch (RuntimeException e) {
            copy.setException(e);
            settled.done(true);
            return true;
        }
    }

    private static PushOutcome ended(Push push, DeliveryState.Outcome outcome, String reason) {
        DeliveryState state = new DeliveryState(push, Instant.now());
        state.end(outcome, reason);
        return state.getResult();
    }

    private AsyncProcessor deadLetterAtOnce() {
        AsyncProcessor route = deadLetterAtOnce;
        if (route == null) {
            deadLetterAtOnce = route = producer(context, DEAD_LETTER_AT_ONCE);
        }
        return route;
    }

    private static AsyncProcessor producer(CamelContext context, String uri) {
        try {
            Producer producer = context.getEndpoint(uri).createAsyncProducer();
            producer.start();
            return AsyncProcessorConverterHelper.convert(producer);
        } catch (Exception e) {
            throw new IllegalStateException("cannot send to " + uri, e);
        }
    }

    /**
     * Holds the match in the partner's queue: pushes sent with the hold (header {@link KeyedQueueConstants#BEFORE}) go
     * before the match's pushes queued since, which wait until it is closed (a recovery, contract 20).
     */
    public KeyHold hold(String partnerName, String matchId) {
        Partner partner = partners.get(partnerName);
        if (partner == null) {
            throw new IllegalArgumentException("no partner named " + partnerName);
        }
        return context.getEndpoint(partner.queueUri, KeyedQueueEndpoint.class).hold(matchId);
    }

    /** The producers it made (each partner's queue, the dead-letter route) stop with it; a later use makes them again. */
    @Override
    protected void doStop() {
        List<AsyncProcessor> made = new ArrayList<>();
        made.add(deadLetterAtOnce);
        deadLetterAtOnce = null;
        for (Partner partner : partners.values()) {
            made.add(partner.queue);
            made.add(partner.queueNoWait);
            partner.queue = null;
            partner.queueNoWait = null;
        }
        ServiceHelper.stopService(made);
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /** A partner's queue; its producers and not-booked counter are made on first use, once the context runs. */
    private final class Partner {
        private final String name;
        private final String queueUri;
        private final Booking booking;
        private final PartnerHealth health;
        private final PartnerPushes pushes;
        private final LiveMatches liveMatches;
        private final Meters meters;
        private volatile AsyncProcessor queue;
        private volatile AsyncProcessor queueNoWait;
        private volatile Counter notBooked;
        private volatile Counter superseded;

        Partner(String name, String queueUri, Booking booking, PartnerHealth health, PartnerPushes pushes,
                LiveMatches liveMatches, Meters meters) {
            this.name = name;
            this.queueUri = queueUri;
            this.booking = booking;
            this.health = health;
            this.pushes = pushes;
            this.liveMatches = liveMatches;
            this.meters = meters;
        }

        /**
         * Into the partner's queue, keyed by match. {@code noWait}: a full queue refuses the push at once (QueueFull)
         * rather than blocking the caller; a heartbeat never waits for a place either.
         */
        boolean enqueue(Exchange exchange, Push push, boolean noWait, AsyncCallback callback) {
            // what the source's message came with (file, JMS, Kafka, HTTP request headers) is no part of the push and
            // never reaches the partner: not copied into the queue, nor looked through by each step of the push route;
            // and a plain message, not the source's kind: camel-jms' JmsMessage throws and catches an exception each
            // time an exchange holding one is copied (the queue copies every push)
            Message message = new DefaultMessage(exchange);
            message.setBody(push);
            Object before = exchange.getMessage().getHeader(KeyedQueueConstants.BEFORE);
            if (before != null) {
                message.setHeader(KeyedQueueConstants.BEFORE, before);
            }
            exchange.setMessage(message);
            message.setHeader(KeyedQueueConstants.KEY, push.matchId());
            message.setHeader(KeyedQueueConstants.SUPERSEDABLE, push.isOdds());
            message.setHeader(KeyedQueueConstants.SUPERSEDES, push.isSnapshot());
            // its bodies are what a push holds of the heap (contract 10: the queues are bounded in bytes too)
            message.setHeader(KeyedQueueConstants.WEIGHT, push.weight());
            exchange.getExchangeExtension().addOnCompletion(new Track(push));
            if (!push.isHeartbeat()) {
                liveMatches.enqueued(push.matchId());
                SourceHandover.of(exchange).queuedUnder(push.matchId());
            }
            return (noWait || push.isHeartbeat() ? queueNoWait() : queue()).process(exchange, callback);
        }

        private AsyncProcessor queue() {
            AsyncProcessor q = queue;
            if (q == null) {
                queue = q = producer(context, queueUri);
            }
            return q;
        }

        private AsyncProcessor queueNoWait() {
            AsyncProcessor q = queueNoWait;
            if (q == null) {
                queueNoWait = q = producer(context, queueUri + "?blockWhenFull=false");
            }
            return q;
        }

        Counter notBooked() {
            Counter c = notBooked;
            if (c == null) {
                notBooked = c = Counter.builder("liveodds.messages.not_booked").tags(meters.tags())
                        .description("messages not pushed to a partner because it has not booked their match")
                        .register(meters.registry());
            }
            return c;
        }

        private Counter superseded() {
            Counter c = superseded;
            if (c == null) {
                superseded = c = DeliveryMeters.superseded(meters.registry(), meters.tags());
            }
            return c;
        }

        /** The end of one push or heartbeat in the partner's queue, however it ended: its match's count goes on. */
        private final class Track extends SynchronizationAdapter {
            private final Push push;

            Track(Push push) {
                this.push = push;
            }

            @Override
            public void onDone(Exchange done) {
                DeliveryState state = DeliveryState.of(done, Instant.now());
                if (Boolean.TRUE.equals(done.getProperty(KeyedQueueConstants.SUPERSEDED, Boolean.class))) {
                    state.endIfOpen(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON);
                    superseded().increment();
                } else if (done.isFailed()) {
                    Exception why = done.getException();
                    state.endIfOpen(DeliveryState.Outcome.HANDED_BACK, why == null ? "failed" : why.getMessage());
                }
                if (push.isHeartbeat()) {
                    liveMatches.heartbeatFinished(push.matchId());
                } else {
                    liveMatches.finished(push.matchId(), state.isDelivered());
                }
            }
        }
    }
}
