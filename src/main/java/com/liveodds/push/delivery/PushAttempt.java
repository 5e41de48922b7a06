package com.liveodds.push.delivery;

import java.time.Clock;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.partner.Booking;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;

/**
 * The start of one attempt of a push, on the partner pool's thread right before its POST: the push goes out unless it
 * was superseded by a later snapshot of its match or is to be handed back (its source withdrew it, the service is stopping, an earlier message of its match was handed
 * back). Counts the attempt, starts its clock and sets the variables the POST is made of ({@code matchId},
 * {@code messageType}, {@code messageId}, {@code pushBody}); the route reads {@value DeliveryState#AGAIN}: false when
 * the push ends here.
 */
public class PushAttempt implements Processor {

    private final LiveMatches liveMatches;
    private final ShutdownGate gate;
    private final Clock clock = Clock.systemUTC();
    private volatile Booking booking = Booking.ALL;

    public PushAttempt(LiveMatches liveMatches, ShutdownGate gate) {
        this.liveMatches = liveMatches;
        this.gate = gate;
    }

    /** The partner's booking: a match unbooked meanwhile gets no further attempt (contract 16). */
    public void setBooking(Booking booking) {
        this.booking = booking;
    }

    @Override
    public void process(Exchange exchange) {
        DeliveryState state = DeliveryState.of(exchange, clock.instant());
        // what the previous attempt left: its caught failure is no part of this one
        exchange.removeProperty(Exchange.EXCEPTION_CAUGHT);
        String handBack = handBack(exchange);
        if (state.isSuperseded()) {
            // a later snapshot of its match came in before its turn (contract 17): no attempt, its source may forget it
            state.end(DeliveryState.Outcome.SUPERSEDED, DeliveryState.SUPERSEDED_REASON);
        } else if (!booking.isBooked(state.getPush().matchId())) {
            // unbooked since it was accepted: its source may forget it, as for every other match this partner did not book
            state.end(DeliveryState.Outcome.NOT_BOOKED, DeliveryState.NOT_BOOKED_REASON);
        } else if (handBack != null) {
            state.end(DeliveryState.Outcome.HANDED_BACK, handBack);
        } else {
            // counted before the token is asked for: a token endpoint that is down costs attempts like a partner that is
            state.attemptStarted();
            Push push = state.getPush();
            liveMatches.pushing(push.matchId());
            // what the POST of routes/delivery.yaml is made of
            exchange.setVariable("matchId", push.matchId());
            exchange.setVariable("messageType", push.messageType());
            exchange.setVariable("messageId", push.messageId());
            exchange.setVariable("pushBody", push.bytes());
            exchange.setVariable(PushVerdict.STARTED, System.nanoTime());
        }
        state.publish(exchange);
    }

    /** Why the push goes back to its source untried, or null when it goes out. */
    private String handBack(Exchange exchange) {
        String handBack = exchange.getVariable(MatchQueues.HAND_BACK, String.class);
        if (handBack != null) {
            return handBack;
        }
        if (SourceHandover.of(exchange).isWithdrawn()) {
            return "withdrawn by its source";
        }
        return gate.isStopping() ? "the service is stopping" : null;
    }
}
