package com.liveodds.push.delivery;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.partner.PartnerHealth;
import io.micrometer.core.instrument.Counter;
import org.apache.camel.AsyncCallback;
import org.apache.camel.AsyncProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Producer;
import org.apache.camel.spi.ReactiveExecutor;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * Hands an accepted push to the delivery of each partner that has its match booked (contract section 16). A source
 * instantiated per partner (its own Kafka group, JMS queue or inbox progress) names its partner in the exchange
 * variable {@value #PARTNER}: the push goes to that partner's queues only. A source shared by all partners (the HTTP
 * source, a replay of a rejected message) names none: each booked partner gets the push, and the caller gets its
 * exchange back once every one of them has delivered, superseded or dead-lettered it (failed, so that the source keeps
 * it, if any partner handed it back), with each partner's outcome in {@link PushOutcome#BY_PARTNER}. A push for no
 * booked partner ends at once, counted as not booked ({@code liveodds_messages_not_booked_total}).
 * <p>
 * A caller that keeps no backlog (variable {@value #NO_BACKLOG}: the HTTP source, whose producer waits on its
 * connection) is never held by one partner: a partner that is down (readiness) or whose queues are full gets the push
 * dead-lettered for it at once ({@code direct:liveodds-dead-letter-at-once}), replayable to it, while the others
 * deliver it; a push already queued for a partner that goes down is dead-lettered at its next failed attempt
 * ({@link PushVerdict}) instead of retried for up to {@code liveodds.delivery.max-elapsed}.
 */
public class PartnerDeliveries extends AsyncProcessorSupport implements CamelContextAware {

    /** Exchange variable: the name of the partner a per-partner source delivers to. */
    public static final String PARTNER = "liveoddsPartner";
    /** Exchange variable, true: the caller keeps no backlog of its own (see above). */
    public static final String NO_BACKLOG = "liveoddsNoBacklog";
    static final String DEAD_LETTER_AT_ONCE = "direct:liveodds-dead-letter-at-once";

    private final Map<String, Partner> partners = new LinkedHashMap<>();
    private CamelContext context;
    private volatile AsyncProcessor deadLetterAtOnce;

    /** Adds a partner ({@code name} empty for the single partner of {@code liveodds.partner.*}). */
    public void add(String name, MatchQueues queues, Booking booking, PartnerHealth health, PushVerdict verdict, Meters meters) {
        partners.put(name, new Partner(name, queues, booking, health, verdict, meters));
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
            return partner.queues.process(exchange, callback);
        }
        return fanOut(exchange, push, callback);
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
            Exchange copy = exchange.copy();
            copy.setPattern(ExchangePattern.InOut);
            copy.setVariable(PARTNER, partner.name);
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
            copy.setVariable(PushVerdict.DEAD_LETTER_WHEN_DOWN, noBacklog);
            if (!noBacklog) {
                // the copy's push route runs now, up to its first asynchronous step, not queued behind the caller's work:
                // a caller that then blocks for its answer (replay) would hold the copies queued on its own thread
                reactive.scheduleSync(() -> partner.queues.process(copy, settled));
            } else if (!partner.health.isUp()) {
                deadLetterAtOnce(copy, partner, "partner " + partner.name + " is down (readiness) and the source keeps no backlog", settled);
            } else if (!partner.queues.offer(copy, settled)) {
                deadLetterAtOnce(copy, partner, "the delivery queues of partner " + partner.name
                        + " are full (liveodds.delivery.queue-size) and the source keeps no backlog", settled);
            }
        }
        return false;
    }

    /** The push is dead-lettered for this partner now, without an attempt; a replay brings it to that partner. */
    private void deadLetterAtOnce(Exchange copy, Partner partner, String reason, AsyncCallback settled) {
        DeliveryState state = new DeliveryState(copy.getMessage().getBody(Push.class), Instant.now());
        state.end(DeliveryState.Outcome.DEAD_LETTERED, reason);
        copy.setVariable(DeliveryState.VARIABLE, state);
        state.publish(copy);
        partner.verdict.deadLetteredAtOnce(state.getPush(), reason);
        try {
            deadLetterAtOnce().process(copy, settled);
        } catch (RuntimeException e) {
            copy.setException(e);
            settled.done(true);
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
            try {
                Producer producer = context.getEndpoint(DEAD_LETTER_AT_ONCE).createAsyncProducer();
                producer.start();
                deadLetterAtOnce = route = AsyncProcessorConverterHelper.convert(producer);
            } catch (Exception e) {
                throw new IllegalStateException("cannot send to " + DEAD_LETTER_AT_ONCE, e);
            }
        }
        return route;
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /** A partner's delivery; its not-booked counter is made on first use, once the meter registry is there. */
    private static final class Partner {
        private final String name;
        private final MatchQueues queues;
        private final Booking booking;
        private final PartnerHealth health;
        private final PushVerdict verdict;
        private final Meters meters;
        private volatile Counter notBooked;

        Partner(String name, MatchQueues queues, Booking booking, PartnerHealth health, PushVerdict verdict, Meters meters) {
            this.name = name;
            this.queues = queues;
            this.booking = booking;
            this.health = health;
            this.verdict = verdict;
            this.meters = meters;
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
    }
}
