package com.liveodds.push.delivery;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.function.BooleanSupplier;

import com.liveodds.push.token.PartnerTokenProvider;
import com.liveodds.push.token.TokenUnavailableException;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shapes each HTTP attempt of a push and judges its outcome; the delivery route does the sending and the waiting.
 * Only the headers of the contract reach the partner: everything an upstream source carried in is dropped first.
 */
public class PartnerPush {

    public static final String STATE = "delivery";
    /**
     * Exchange property a source may set to a {@link BooleanSupplier}: while it answers false the push is not (or no
     * more) attempted and fails back unacknowledged.
     */
    public static final String WANTED = "delivery.wanted";
    private static final Logger LOG = LoggerFactory.getLogger(PartnerPush.class);
    private static final int MAX_KEPT_RESPONSE = 4096;

    private final PartnerTokenProvider tokens;
    private final RetryPolicy policy;
    private final Clock clock = Clock.systemUTC();
    private String partnerId;

    public PartnerPush(PartnerTokenProvider tokens, RetryPolicy policy) {
        this.tokens = tokens;
        this.policy = policy;
    }

    public PartnerPush(String partnerId, PartnerTokenProvider tokens, RetryPolicy policy) {
        this(tokens, policy);
        this.partnerId = partnerId;
    }

    /** The partnerId path segment. */
    public void setPartnerId(String partnerId) {
        this.partnerId = partnerId;
    }

    /** Starts the attempts of the push in the body. */
    public void begin(Exchange exchange) throws org.apache.camel.InvalidPayloadException {
        Push push = exchange.getMessage().getMandatoryBody(Push.class);
        DeliveryState state = new DeliveryState(push, clock.instant());
        BooleanSupplier wanted = exchange.getProperty(WANTED, BooleanSupplier.class);
        if (wanted != null) {
            state.wantedWhile(wanted);
        }
        if (!state.isWanted()) {
            state.withdraw();
        }
        exchange.setProperty(STATE, state);
    }

    /** Sets body and headers of the next attempt; a token that cannot be had fails the attempt, not the push. */
    public void prepare(Exchange exchange) {
        DeliveryState state = exchange.getProperty(STATE, DeliveryState.class);
        exchange.removeProperty(Exchange.EXCEPTION_CAUGHT);
        Push push = state.getPush();
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        // bytes, not text: the body is UTF-8 whatever charset the exchange picked up on its way in
        message.setBody(push.json().getBytes(StandardCharsets.UTF_8));
        // counted before the token is asked for: a token endpoint that is down costs attempts like a partner that is
        state.attemptStarted();
        String token = tokens.token();
        // fetching a token can take a while: a push its source withdrew meanwhile must not go out late
        if (!state.isWanted()) {
            state.withdraw();
            throw new DeliveryInterruptedException(push, "withdrawn by its source");
        }
        state.useToken(token);
        message.setHeader("Authorization", "Bearer " + token);
        message.setHeader(Exchange.CONTENT_TYPE, "application/json");
        message.setHeader("Idempotency-Key", push.messageId());
        message.setHeader(Exchange.HTTP_METHOD, "POST");
        message.setHeader(Exchange.HTTP_PATH, push.path(partnerId));
    }

    /** Reads the outcome of the attempt just made and sets what comes next: done, wait and retry, or dead letter. */
    public void afterAttempt(Exchange exchange) {
        DeliveryState state = exchange.getProperty(STATE, DeliveryState.class);
        if (state.isWithdrawn()) {
            // withdrawn before it went out: there is no answer to judge and nothing to retry
            exchange.removeProperty(Exchange.EXCEPTION_CAUGHT);
            return;
        }
        Instant now = clock.instant();
        int status = outcome(exchange, state);
        String retryAfter = status > 0 ? exchange.getMessage().getHeader("Retry-After", String.class) : null;
        if (status == 401 && state.tokenInUse() != null) {
            tokens.invalidate(state.tokenInUse());
        }
        RetryPolicy.Decision decision = policy.decide(status, retryAfter, state.getAttempts(), state.getFirstAttemptAt(), now,
                state.isRenewedFor401());
        state.apply(decision, status);
        Push push = state.getPush();
        switch (decision.action()) {
            case DELIVERED -> LOG.info("Delivered {} {} to {} (HTTP {}, attempt {})", push.messageType(), push.messageId(),
                    push.matchId(), status, state.getAttempts());
            case RETRY -> LOG.warn("Push {} {} to {} attempt {} failed ({}{}); retrying in {} ms", push.messageType(),
                    push.messageId(), push.matchId(), state.getAttempts(), decision.reason(),
                    state.getLastError() != null ? ": " + state.getLastError() : "", decision.delay().toMillis());
            case DEAD_LETTER -> LOG.error("Push {} {} to {} dead-lettered after {} attempts: {}{}", push.messageType(),
                    push.messageId(), push.matchId(), state.getAttempts(), decision.reason(),
                    status > 0 ? "" : " (" + state.getLastError() + ")");
        }
    }

    /** Ends the push: fails the exchange when shutdown interrupted it or its source withdrew it, so no source acknowledges it. */
    public void end(Exchange exchange) {
        DeliveryState state = exchange.getProperty(STATE, DeliveryState.class);
        if (state.isWithdrawn()) {
            throw new DeliveryInterruptedException(state.getPush(), "withdrawn by its source");
        }
        if (state.isInterrupted()) {
            throw new DeliveryInterruptedException(state.getPush(), "shutdown ended its delivery");
        }
    }

    /** Heartbeats are never retried: the next one is due a few seconds later anyway. */
    public boolean heartbeatDelivered(Exchange exchange) {
        DeliveryState state = exchange.getProperty(STATE, DeliveryState.class);
        int status = outcome(exchange, state);
        if (status == 401 && state.tokenInUse() != null) {
            tokens.invalidate(state.tokenInUse());
        }
        boolean delivered = status >= 200 && status < 300;
        if (!delivered) {
            LOG.warn("Heartbeat to {} failed ({})", state.getPush().matchId(),
                    status > 0 ? "HTTP " + status : state.getLastError());
        }
        return delivered;
    }

    private static int outcome(Exchange exchange, DeliveryState state) {
        Exception error = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        if (error != null) {
            exchange.removeProperty(Exchange.EXCEPTION_CAUGHT);
            state.failed(describe(error));
            return 0;
        }
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status == null) {
            state.failed("no HTTP status");
            return 0;
        }
        String body = exchange.getMessage().getBody(String.class);
        if (body != null && body.length() > MAX_KEPT_RESPONSE) {
            body = body.substring(0, MAX_KEPT_RESPONSE);
        }
        state.answered(status, body);
        return status;
    }

    private static String describe(Exception error) {
        if (error instanceof TokenUnavailableException) {
            return error.getMessage();
        }
        return error.getClass().getSimpleName() + (error.getMessage() != null ? ": " + error.getMessage() : "");
    }
}
