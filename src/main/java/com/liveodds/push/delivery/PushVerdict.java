package com.liveodds.push.delivery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.MessageLogContext;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.token.PartnerTokenProvider;
import com.liveodds.push.token.TokenUnavailableException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verdict on one attempt, right after its POST ({@code liveoddsHttp}, {@code throwExceptionOnFailure=false}):
 * the answer (or the failure the call ended with) is timed ({@code liveodds_push_attempt_seconds{outcome}}), told to
 * the readiness check {@code partner}, and judged by the {@link RetryPolicy}: delivered, again (at once after a 401,
 * else after a back-off or {@code Retry-After}), or dead-lettered. A heartbeat gets one attempt and is never retried.
 */
public class PushVerdict implements Processor, CamelContextAware {

    /** Exchange variable: System.nanoTime() when the attempt's request started. */
    public static final String STARTED = "attemptStarted";
    /** Exchange variable: the {@code Authorization} value the attempt sent (never logged), so a 401 drops that token. */
    public static final String AUTHORIZATION = "authorization";
    /**
     * Exchange variable, true on the copy of a push for one partner whose caller keeps no backlog (see
     * {@link PartnerDeliveries}): once the partner is down (readiness) the push is dead-lettered for it instead of
     * retried.
     */
    static final String DEAD_LETTER_WHEN_DOWN = "liveoddsDeadLetterWhenDown";
    private static final Logger LOG = LoggerFactory.getLogger(PushVerdict.class);
    private static final String[] OUTCOMES = {"2xx", "401", "4xx", "5xx", "429", "timeout", "error"};

    private final PartnerTokenProvider tokens;
    private final RetryPolicy policy;
    private final LiveMatches liveMatches;
    private final PartnerHealth health;
    private final Clock clock = Clock.systemUTC();
    private CamelContext camelContext;
    /** "Partner a: " before each log line of a partner of liveodds.partners; nothing for the single partner. */
    private volatile String who = "";
    private volatile Meters registryBean;
    private volatile DeliveryMeters meters;
    private volatile Timer[] timers;

    public PushVerdict(PartnerTokenProvider tokens, RetryPolicy policy, LiveMatches liveMatches, PartnerHealth health) {
        this.tokens = tokens;
        this.policy = policy;
        this.liveMatches = liveMatches;
        this.health = health;
    }

    @Override
    public void process(Exchange exchange) {
        DeliveryState state = exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        Push push = state.getPush();
        if (causedByError(failure)) {
            // the JVM is in doubt (contract 10): no verdict; the attempt fails, the push goes back to its source and
            // liveoddsDelivery turns liveness DOWN. The request's headers (the token among them) go no further.
            exchange.getMessage().removeHeaders("*", "Camel*");
            exchange.setException(failure);
            return;
        }
        try (var log = MessageLogContext.of(push.matchId(), push.messageId())) {
            if (failure instanceof TokenUnavailableException noToken) {
                // no request went out: the token provider has told the readiness check
                judge(exchange, state, push, new PartnerAnswer(0, null, null, null, noToken.getMessage(), false));
                return;
            }
            PartnerAnswer answer = PartnerAnswer.of(exchange, failure, PartnerAnswer.KEPT);
            reported(answer, exchange.getVariable(STARTED, Long.class));
            if (answer.status() == 401) {
                String sent = exchange.getVariable(AUTHORIZATION, String.class);
                if (sent != null && sent.startsWith("Bearer ")) {
                    tokens.invalidate(sent.substring("Bearer ".length()));
                }
            }
            judge(exchange, state, push, answer);
        }
    }

    private static boolean causedByError(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof Error) {
                return true;
            }
        }
        return false;
    }

    private void judge(Exchange exchange, DeliveryState state, Push push, PartnerAnswer answer) {
        state.answered(answer);
        Instant now = clock.instant();
        liveMatches.attempted(push.matchId(), state.getAttempts(), answer.status(), answer.error(), !answer.isSuccess());
        if (push.isHeartbeat()) {
            if (answer.isSuccess()) {
                state.end(DeliveryState.Outcome.DELIVERED, null);
                meters().heartbeatsDelivered.increment();
            } else {
                meters().heartbeatsFailed.increment();
                state.end(DeliveryState.Outcome.FAILED, describe(answer));
                LOG.warn("{}Heartbeat to {} failed ({})", who, push.matchId(), describe(answer));
            }
            state.publish(exchange);
            return;
        }
        RetryPolicy.Decision decision = policy.decide(answer, state.getAttempts(), state.getFirstAttemptAt(), now,
                state.isRenewedFor401());
        // the attempt was on the wire when a snapshot of its match came in (contract 17): failed, it is neither retried
        // nor dead-lettered but superseded
        if (decision.action() != RetryPolicy.Action.DELIVERED && state.isSuperseded()) {
            state.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON);
            state.publish(exchange);
            return;
        }
        if (decision.action() == RetryPolicy.Action.RETRY && !health.isUp()
                && Boolean.TRUE.equals(exchange.getVariable(DEAD_LETTER_WHEN_DOWN, Boolean.class))) {
            // its caller waits for every partner and keeps no backlog (contract 16): a partner down holds it no longer
            decision = new RetryPolicy.Decision(RetryPolicy.Action.DEAD_LETTER, Duration.ZERO,
                    describe(answer) + "; the partner is down (readiness) and the source keeps no backlog");
        }
        switch (decision.action()) {
            case DELIVERED -> {
                state.end(DeliveryState.Outcome.DELIVERED, null);
                meters().delivered.increment();
                meters().latency(push.messageType()).record(Duration.between(push.receivedAt(), now));
                LOG.info("{}Delivered {} (HTTP {}, attempt {})", who, push, answer.status(), state.getAttempts());
            }
            case RETRY -> {
                state.retryIn(decision.delay().toMillis(), answer.status() == 401);
                meters().retried.increment();
                LOG.warn("{}Push {} attempt {} failed ({}{}); retrying in {} ms", who, push, state.getAttempts(), decision.reason(),
                        answer.error() != null ? ": " + answer.error() : "", decision.delay().toMillis());
            }
            case DEAD_LETTER -> {
                state.end(DeliveryState.Outcome.DEAD_LETTERED, decision.reason());
                meters().deadLettered.increment();
                LOG.error("{}Push {} dead-lettered after {} attempts: {}{}", who, push, state.getAttempts(), decision.reason(),
                        answer.status() > 0 ? "" : " (" + answer.error() + ")");
            }
        }
        state.publish(exchange);
    }

    /** A push dead-lettered for this partner without an attempt (see {@link PartnerDeliveries}): counted and logged. */
    void deadLetteredAtOnce(Push push, String reason) {
        meters().deadLettered.increment();
        LOG.error("{}Push {} dead-lettered without an attempt: {}", who, push, reason);
    }

    private static String describe(PartnerAnswer answer) {
        return answer.status() > 0 ? "HTTP " + answer.status() : answer.error();
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

    /** The seven timers, made on first use (the meter registry exists once the CamelContext runs). */
    private Timer[] timers() {
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

    /** The partner's view of the bundle's meter registry ({@link Meters#forPartner}). */
    /** The partner's name in liveodds.partners (empty for the single partner), named in each log line. */
    public void setPartner(String name) {
        this.who = name == null || name.isEmpty() ? "" : "Partner " + name + ": ";
    }

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
