package com.liveodds.push.delivery;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.MessageLogContext;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.queue.KeyedQueueConstants;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partner's record of its pushes, the steps of its push route (routes/delivery.yaml) call in turn: the attempt
 * starts ({@link #attempt}), is answered and judged ({@link #answered}: the verdict the route's choice branches on),
 * and ends delivered, runs again ({@link #retrying}: the route asks its queue for it) or is dead-lettered
 * ({@link #deadLettered}). Each step keeps the push's {@link DeliveryState}, its meters (attempts by outcome, delivered,
 * retried, dead-lettered, latency), the readiness check {@code partner} and the status of its match; the verdict is
 * decided here, never thrown, and the route carries it out.
 */
public class PartnerPushes implements CamelContextAware {

    /** Exchange variable, true on the copy of a push whose caller keeps no backlog (see {@link PartnerDeliveries}). */
    static final String DEAD_LETTER_WHEN_DOWN = "liveoddsDeadLetterWhenDown";
    /**
     * Exchange variable, true on a push a recovery asked for (contract 20): one the partner does not take is refused,
     * counted by its recovery, and not dead-lettered (its message stays retained; its own push had its own outcome).
     */
    public static final String RECOVERED = "liveoddsRecovered";
    /** Exchange variable, the verdict on the attempt as the route's choice reads it ({@link RetryPolicy.Action#verdict}). */
    static final String VERDICT = "verdict";
    /** Exchange variable, a Duration: how long the push waits before it runs again, for a verdict that runs it again. */
    static final String RETRY_IN = "retryIn";
    private static final String STARTED = "attemptStarted";
    private static final Logger LOG = LoggerFactory.getLogger(PartnerPushes.class);
    private static final String[] OUTCOMES = {"2xx", "401", "4xx", "5xx", "429", "timeout", "error"};

    private final RetryPolicy policy;
    private final LiveMatches liveMatches;
    private final PartnerHealth health;
    private final Clock clock = Clock.systemUTC();
    private CamelContext camelContext;
    /** "Partner a: " before each log line of a partner of liveodds.partners; nothing for the single partner. */
    private volatile String who = "";
    /** The partner's name in liveodds.partners (empty for the single partner), whose dead letters its pushes go to. */
    private volatile String partner = "";
    private volatile Booking booking = Booking.ALL;
    private volatile BooleanSupplier deadLettersFull = () -> false;
    private volatile Consumer<String> pauseWhenFull = reason -> { };
    private volatile Meters registryBean;
    private volatile DeliveryMeters meters;
    private volatile Timer[] timers;

    public PartnerPushes(RetryPolicy policy, LiveMatches liveMatches, PartnerHealth health) {
        this.policy = policy;
        this.liveMatches = liveMatches;
        this.health = health;
    }

    /** Unbooked since it was accepted (contract 16): the push ends without an attempt, its source may forget it. */
    private boolean unbooked(Exchange exchange) {
        DeliveryState state = DeliveryState.of(exchange, clock.instant());
        if (state.getPush().isHeartbeat() || booking.isBooked(state.getPush().matchId())) {
            return false;
        }
        state.end(DeliveryState.Outcome.NOT_BOOKED, DeliveryState.NOT_BOOKED_REASON);
        return true;
    }

    /**
     * {@link #unbooked} as the predicate of the push route's filter ({@code unbookedPush}): the method language
     * would copy the exchange and wait on the copy for every push.
     */
    public Predicate unbookedCheck() {
        return this::unbooked;
    }

    /**
     * An attempt starts: counted before the token is asked for (a token endpoint that is down costs attempts like a
     * partner that is), and the variables the POST is made of set: {@code matchId}, {@code messageType},
     * {@code messageId}, {@code pushBody}.
     */
    public void attempt(Exchange exchange) {
        DeliveryState state = DeliveryState.of(exchange, clock.instant());
        state.attemptStarted();
        Push push = state.getPush();
        liveMatches.pushing(push.matchId());
        exchange.setVariable("matchId", push.matchId());
        exchange.setVariable("messageType", push.messageType());
        exchange.setVariable("messageId", push.messageId());
        exchange.setVariable("attempt", state.getAttempts());
        exchange.setVariable("pushBody", push.bytes());
        exchange.setVariable(STARTED, System.nanoTime());
    }

    /**
     * The partner's answer, or why there was none (the exception the POST was caught with, or no token to be had):
     * timed by outcome ({@code liveodds_push_attempt_seconds}), told to the readiness check {@code partner} (unless no
     * request went out for want of a token: the token provider told it) and to the status of the match, and judged
     * ({@link #verdict}): variables {@value #VERDICT} and {@value #RETRY_IN}. An answer whose body did not come in full
     * is judged as no answer (a time-out, a dropped connection).
     */
    public void answered(Exchange exchange) {
        DeliveryState state = state(exchange);
        // the POST's failure the route went on from (its onException continued), if any
        Throwable failure = exchange.getProperty(ExchangePropertyKey.EXCEPTION_CAUGHT, Throwable.class);
        PartnerAnswer answer = PartnerAnswer.of(exchange, failure, PartnerAnswer.KEPT);
        if (failure != null) {
            // camel-http sets the status before it reads the body: a body cut at the time-out leaves a 2xx behind, and
            // the route's verdict reads the status. An answer that did not come in full is no answer (contract 10).
            exchange.getMessage().removeHeader(Exchange.HTTP_RESPONSE_CODE);
        }
        if (!(failure instanceof com.liveodds.push.token.TokenUnavailableException)) {
            reported(answer, exchange.getVariable(STARTED, Long.class));
        }
        state.answered(answer);
        liveMatches.attempted(state.getPush().matchId(), state.getAttempts(), answer.status(), answer.error(),
                !answer.isSuccess());
        RetryPolicy.Decision decision = verdict(exchange, state, answer);
        state.judged(decision);
        exchange.setVariable(VERDICT, decision.action().verdict());
        exchange.setVariable(RETRY_IN, decision.action().runsAgain() ? decision.delay() : null);
    }

    /**
     * The verdict on the attempt (contract 7, 10, 16, 17, 22): the retry policy's on the answer (delivered, renew the
     * token, retry after the back-off within the budget, dead letter), then what the partner's state adds. Superseded
     * meanwhile, a push that did not get through is neither retried nor dead-lettered; one whose caller keeps no backlog
     * is dead-lettered rather than retried while the partner is down; one to be dead-lettered while the partner's dead
     * letters are full is held instead (the partner paused), to be judged again after its resume. Decides, never throws.
     */
    RetryPolicy.Decision verdict(Exchange exchange, DeliveryState state, PartnerAnswer answer) {
        RetryPolicy.Decision decision = policy.decide(answer, state.getAttempts(), state.getFirstAttemptAt(), clock.instant(),
                state.isRenewedFor401());
        RetryPolicy.Action action = decision.action();
        if (action == RetryPolicy.Action.DELIVERED || state.getPush().isHeartbeat()) {
            return decision;
        }
        AtomicBoolean superseded = exchange.getProperty(KeyedQueueConstants.SUPERSEDED_MARK, AtomicBoolean.class);
        if (superseded != null && superseded.get()) {
            return new RetryPolicy.Decision(RetryPolicy.Action.SUPERSEDED, Duration.ZERO, DeliveryState.SUPERSEDED_REASON);
        }
        if (action.runsAgain() && !health.isUp()
                && Boolean.TRUE.equals(exchange.getVariable(DEAD_LETTER_WHEN_DOWN, Boolean.class))) {
            return new RetryPolicy.Decision(RetryPolicy.Action.DEAD_LETTER, Duration.ZERO,
                    describe(state) + "; the partner is down (readiness) and the source keeps no backlog");
        }
        if (action == RetryPolicy.Action.DEAD_LETTER && !Boolean.TRUE.equals(exchange.getVariable(RECOVERED, Boolean.class))
                && deadLettersFull.getAsBoolean()) {
            return new RetryPolicy.Decision(RetryPolicy.Action.HELD, policy.maxBackoff(),
                    "the partner's dead letters are full (liveodds.dead-letter.max-per-partner): " + decision.reason());
        }
        return decision;
    }

    public void delivered(Exchange exchange) {
        DeliveryState state = state(exchange);
        Push push = state.getPush();
        state.end(DeliveryState.Outcome.DELIVERED, null);
        if (push.isHeartbeat()) {
            meters().heartbeatsDelivered.increment();
            return;
        }
        meters().delivered.increment();
        meters().latency(push.messageType()).record(Duration.between(push.receivedAt(), clock.instant()));
        try (var log = MessageLogContext.of(exchange, push.matchId(), push.messageId())) {
            LOG.info("{}Delivered {} (HTTP {}, attempt {})", who, push, state.getLastStatus(), state.getAttempts());
        }
    }

    /** A heartbeat that got no 2xx: logged and counted, never retried; the next one is due an interval later. */
    public void heartbeatFailed(Exchange exchange) {
        DeliveryState state = state(exchange);
        state.end(DeliveryState.Outcome.FAILED, describe(state));
        meters().heartbeatsFailed.increment();
        LOG.warn("{}Heartbeat to {} failed ({})", who, state.getPush().matchId(), describe(state));
    }

    /**
     * A push that runs again, as judged ({@link #verdict}): counted and logged, after the back-off (after a 401 with a
     * new token, at once the first time); superseded, it is left for the queue to end; held, its partner is paused.
     */
    public void retrying(Exchange exchange) {
        DeliveryState state = state(exchange);
        RetryPolicy.Decision decision = state.getDecision();
        switch (decision.action()) {
            case SUPERSEDED -> {
                // the queue ends it superseded
            }
            case HELD -> {
                // contract 22: at the bound a push is neither dropped nor acknowledged; the partner is paused (contract
                // 24) and the push held at the head of its match, judged again once it is resumed
                pauseWhenFull.accept("dead letters full (liveodds.dead-letter.max-per-partner)");
                state.retryIn(decision.delay().toMillis(), false);
            }
            default -> {
                Push push = state.getPush();
                state.retryIn(decision.delay().toMillis(), state.getLastStatus() == 401);
                meters().retried.increment();
                try (var log = MessageLogContext.of(exchange, push.matchId(), push.messageId())) {
                    LOG.warn("{}Push {} attempt {} failed ({}{}); retrying in {} ms", who, push, state.getAttempts(),
                            decision.reason(), state.getLastError() != null ? ": " + state.getLastError() : "",
                            decision.delay().toMillis());
                }
            }
        }
    }

    /**
     * A push the partner will not get, as judged ({@link #verdict}: a 3xx, never followed, another 4xx, the budget
     * spent, the partner down for a caller that keeps no backlog): dead-lettered for its partner (variable
     * {@link PartnerDeliveries#PARTNER}), or, recovered, refused and counted by its recovery.
     */
    public void deadLettered(Exchange exchange) {
        DeliveryState state = state(exchange);
        Push push = state.getPush();
        String reason = state.getDecision().reason();
        if (Boolean.TRUE.equals(exchange.getVariable(RECOVERED, Boolean.class))) {
            state.end(DeliveryState.Outcome.REFUSED, reason);
            try (var log = MessageLogContext.of(exchange, push.matchId(), push.messageId())) {
                LOG.warn("{}Recovered push {} not taken after {} attempts: {}; counted by its recovery, not dead-lettered",
                        who, push, state.getAttempts(), reason);
            }
            return;
        }
        state.end(DeliveryState.Outcome.DEAD_LETTERED, reason);
        exchange.setVariable(PartnerDeliveries.PARTNER, partner);
        meters().deadLettered.increment();
        try (var log = MessageLogContext.of(exchange, push.matchId(), push.messageId())) {
            LOG.error("{}Push {} dead-lettered after {} attempts: {}{}", who, push, state.getAttempts(), reason,
                    state.getLastStatus() > 0 ? "" : " (" + state.getLastError() + ")");
        }
    }

    /** A push dead-lettered for this partner without an attempt (see {@link PartnerDeliveries}): counted and logged. */
    void deadLetteredAtOnce(Push push, String reason) {
        meters().deadLettered.increment();
        LOG.error("{}Push {} dead-lettered without an attempt: {}", who, push, reason);
    }

    private static DeliveryState state(Exchange exchange) {
        return exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
    }

    private static String describe(DeliveryState state) {
        return state.getLastStatus() > 0 ? "HTTP " + state.getLastStatus() : state.getLastError();
    }

    /** Every request that went out: timed by outcome and told to the readiness check {@code partner}. */
    private void reported(PartnerAnswer answer, Long startedNanos) {
        health.answered(answer);
        Timer[] byOutcome = timers();
        if (byOutcome != null && startedNanos != null) {
            byOutcome[outcomeIndex(answer.outcome())].record(System.nanoTime() - startedNanos, TimeUnit.NANOSECONDS);
        }
    }

    private static int outcomeIndex(String outcome) {
        for (int i = 0; i < OUTCOMES.length; i++) {
            if (OUTCOMES[i].equals(outcome)) {
                return i;
            }
        }
        return OUTCOMES.length - 1;
    }

    /**
     * The seven timers, made on first use (the meter registry exists once the CamelContext runs), by one thread: the
     * first pushes of every match would otherwise each build them under the registry's lock.
     */
    private Timer[] timers() {
        Timer[] cached = timers;
        return cached != null ? cached : makeTimers();
    }

    private synchronized Timer[] makeTimers() {
        Timer[] cached = timers;
        if (cached == null) {
            if (registryBean == null && camelContext == null) {
                return null;
            }
            Meters partner = Meters.orOf(registryBean, camelContext);
            MeterRegistry registry = partner.registry();
            cached = new Timer[OUTCOMES.length];
            for (int i = 0; i < OUTCOMES.length; i++) {
                cached[i] = Timer.builder("liveodds.push.attempt")
                        .description("One HTTP attempt to the partner (push or heartbeat), by outcome")
                        .tags(partner.tags())
                        .tag("outcome", OUTCOMES[i])
                        .publishPercentileHistogram()
                        .register(registry);
            }
            timers = cached;
        }
        return cached;
    }

    private DeliveryMeters meters() {
        DeliveryMeters m = meters;
        if (m == null) {
            synchronized (this) {
                if (meters == null) {
                    Meters partner = Meters.orOf(registryBean, camelContext);
                    meters = new DeliveryMeters(partner.registry(), partner.tags());
                }
                m = meters;
            }
        }
        return m;
    }

    /** The partner's booking: a match unbooked meanwhile gets no further attempt (contract 16). */
    public void setBooking(Booking booking) {
        this.booking = booking;
    }

    /** What pauses the partner, with the reason, when its dead letters are full. */
    public void setPauseWhenFull(Consumer<String> pauseWhenFull) {
        this.pauseWhenFull = pauseWhenFull;
    }

    /**
     * Whether the partner has as many dead letters as it may have ({@code DeadLetterBudget#isFull}, wired by the
     * partners' configuration): a push that would be dead-lettered is held instead.
     */
    public void setDeadLettersFull(BooleanSupplier deadLettersFull) {
        this.deadLettersFull = deadLettersFull;
    }

    /** The partner's name in liveodds.partners (empty for the single partner), named in each log line. */
    public void setPartner(String name) {
        this.partner = name == null ? "" : name;
        this.who = name == null || name.isEmpty() ? "" : "Partner " + name + ": ";
    }

    /** The partner's view of the bundle's meter registry ({@link Meters#forPartner}). */
    public void setMeters(Meters meters) {
        this.registryBean = meters;
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
