package com.liveodds.push.delivery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.MessageLogContext;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerClient;
import com.liveodds.push.token.PartnerTokenProvider;
import com.liveodds.push.token.TokenUnavailableException;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.support.AsyncProcessorSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of a push: the token, one POST (asynchronous: no thread waits for the partner), and the verdict of the
 * retry policy: delivered, retry after a delay, dead-letter, or hand back (its source withdrew it, the service is
 * stopping). A heartbeat gets one attempt and is never retried.
 */
public class PushAttempt extends AsyncProcessorSupport implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(PushAttempt.class);

    private final PartnerTokenProvider tokens;
    private final PartnerClient partner;
    private final RetryPolicy policy;
    private final LiveMatches liveMatches;
    private final ShutdownGate gate;
    private final Clock clock = Clock.systemUTC();
    private String partnerId;
    private CamelContext camelContext;
    private volatile DeliveryMeters meters;

    public PushAttempt(PartnerTokenProvider tokens, PartnerClient partner, RetryPolicy policy, LiveMatches liveMatches,
                       ShutdownGate gate) {
        this.tokens = tokens;
        this.partner = partner;
        this.policy = policy;
        this.liveMatches = liveMatches;
        this.gate = gate;
    }

    /** The partnerId path segment. */
    public void setPartnerId(String partnerId) {
        this.partnerId = partnerId;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        DeliveryState state;
        try {
            state = DeliveryState.of(exchange, clock.instant());
            if (!admit(exchange, state)) {
                state.publish(exchange);
                callback.done(true);
                return true;
            }
        } catch (Throwable e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
        // counted before the token is asked for: a token endpoint that is down costs attempts like a partner that is
        state.attemptStarted();
        tokens.tokenAsync().thenCompose(token -> {
            // fetching a token can take a while: a push withdrawn or stopped meanwhile must not go out late
            if (!admit(exchange, state)) {
                return CompletableFuture.completedFuture((PartnerAnswer) null);
            }
            Push push = state.getPush();
            state.useToken(token);
            liveMatches.pushing(push.matchId());
            return partner.post(push.path(partnerId), "Bearer " + token, push.messageId(), push.bytes());
        }).whenComplete((answer, error) -> {
            try {
                if (answer != null) {
                    judge(exchange, state, answer);
                } else if (error != null) {
                    judge(exchange, state, new PartnerAnswer(0, null, null, null, describe(error), false));
                } else {
                    state.publish(exchange);
                }
            } catch (Throwable e) {
                // whatever went wrong, the push ends here and its match goes on: the source keeps the message
                state.end(DeliveryState.Outcome.HANDED_BACK, "delivery failed: " + e);
                state.publish(exchange);
                exchange.setException(e);
            } finally {
                callback.done(false);
            }
        });
        return false;
    }

    /** Before an attempt goes out: false when the push ends here, handed back to its source. */
    private boolean admit(Exchange exchange, DeliveryState state) {
        // supersede hook (contract 17): a push superseded before its attempt makes none; its source may forget it
        if (state.isSuperseded()) {
            state.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON);
            return false;
        }
        String handBack = exchange.getVariable(MatchQueues.HAND_BACK, String.class);
        if (handBack != null) {
            state.end(DeliveryState.Outcome.HANDED_BACK, handBack);
            return false;
        }
        if (SourceHandover.of(exchange).isWithdrawn()) {
            state.end(DeliveryState.Outcome.HANDED_BACK, "withdrawn by its source");
            return false;
        }
        if (gate.isStopping()) {
            state.end(DeliveryState.Outcome.HANDED_BACK, "the service is stopping");
            return false;
        }
        return true;
    }

    private void judge(Exchange exchange, DeliveryState state, PartnerAnswer answer) {
        Push push = state.getPush();
        try (var log = MessageLogContext.of(push.matchId(), push.messageId())) {
            judge(exchange, state, push, answer);
        }
    }

    private void judge(Exchange exchange, DeliveryState state, Push push, PartnerAnswer answer) {
        state.answered(answer);
        if (answer.status() == 401 && state.tokenInUse() != null) {
            tokens.invalidate(state.tokenInUse());
        }
        Instant now = clock.instant();
        liveMatches.attempted(push.matchId(), state.getAttempts(), answer.status(), answer.error(), !answer.isSuccess());
        if (push.isHeartbeat()) {
            if (answer.isSuccess()) {
                state.end(DeliveryState.Outcome.DELIVERED, null);
                meters().heartbeatsDelivered.increment();
            } else {
                meters().heartbeatsFailed.increment();
                state.end(DeliveryState.Outcome.FAILED, describe(answer));
                LOG.warn("Heartbeat to {} failed ({})", push.matchId(), describe(answer));
            }
            state.publish(exchange);
            return;
        }
        RetryPolicy.Decision decision = policy.decide(answer, state.getAttempts(), state.getFirstAttemptAt(), now,
                state.isRenewedFor401());
        // supersede hook (contract 17): the attempt was on the wire when a snapshot came in; failed, it is not retried
        // or dead-lettered but superseded
        if (decision.action() != RetryPolicy.Action.DELIVERED && state.isSuperseded()) {
            state.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON);
            state.publish(exchange);
            return;
        }
        switch (decision.action()) {
            case DELIVERED -> {
                state.end(DeliveryState.Outcome.DELIVERED, null);
                meters().delivered.increment();
                meters().latency(push.messageType()).record(Duration.between(push.receivedAt(), now));
                LOG.info("Delivered {} (HTTP {}, attempt {})", push, answer.status(), state.getAttempts());
            }
            case RETRY -> {
                state.retryIn(decision.delay().toMillis(), answer.status() == 401);
                meters().retried.increment();
                LOG.warn("Push {} attempt {} failed ({}{}); retrying in {} ms", push, state.getAttempts(), decision.reason(),
                        answer.error() != null ? ": " + answer.error() : "", decision.delay().toMillis());
            }
            case DEAD_LETTER -> {
                state.end(DeliveryState.Outcome.DEAD_LETTERED, decision.reason());
                meters().deadLettered.increment();
                LOG.error("Push {} dead-lettered after {} attempts: {}{}", push, state.getAttempts(), decision.reason(),
                        answer.status() > 0 ? "" : " (" + answer.error() + ")");
            }
        }
        state.publish(exchange);
    }

    private static String describe(PartnerAnswer answer) {
        return answer.status() > 0 ? "HTTP " + answer.status() : answer.error();
    }

    /** Why there was no attempt: the token could not be had. */
    private static String describe(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return cause instanceof TokenUnavailableException ? cause.getMessage() : "no token: " + cause;
    }

    private DeliveryMeters meters() {
        DeliveryMeters m = meters;
        if (m == null) {
            synchronized (this) {
                if (meters == null) {
                    meters = new DeliveryMeters(Meters.registry(camelContext));
                }
                m = meters;
            }
        }
        return m;
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
