package com.liveodds.push.delivery;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.Booking;
import io.micrometer.core.instrument.Counter;
import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * Hands an accepted push to the delivery of each partner that has its match booked (contract section 16). A source
 * instantiated per partner (its own Kafka group, JMS queue or inbox progress) names its partner in the exchange
 * variable {@value #PARTNER}: the push goes to that partner's queues only. A source shared by all partners (the HTTP
 * source, a replay of a rejected message) names none: each booked partner gets the push, and the caller gets its
 * exchange back once every one of them has delivered, superseded or dead-lettered it (failed, so that the source keeps
 * it, if any partner handed it back). A push for no booked partner ends at once, counted as not booked
 * ({@code liveodds_messages_not_booked_total}).
 */
public class PartnerDeliveries extends AsyncProcessorSupport {

    /** Exchange variable: the name of the partner a per-partner source delivers to. */
    public static final String PARTNER = "liveoddsPartner";

    private final Map<String, Partner> partners = new LinkedHashMap<>();

    /** Adds a partner ({@code name} empty for the single partner of {@code liveodds.partner.*}). */
    public void add(String name, MatchQueues queues, Booking booking, Meters meters) {
        partners.put(name, new Partner(name, queues, booking, meters));
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
        List<Partner> booked = new ArrayList<>();
        for (Partner partner : partners.values()) {
            if (partner.booking.isBooked(push.matchId())) {
                booked.add(partner);
            } else {
                partner.notBooked().increment();
            }
        }
        if (booked.isEmpty()) {
            callback.done(true);
            return true;
        }
        AtomicInteger left = new AtomicInteger(booked.size());
        AtomicReference<Throwable> handedBack = new AtomicReference<>();
        for (Partner partner : booked) {
            Exchange copy = exchange.copy();
            copy.setPattern(ExchangePattern.InOut);
            copy.setVariable(PARTNER, partner.name);
            partner.queues.process(copy, doneSync -> {
                if (copy.getException() != null) {
                    handedBack.compareAndSet(null, copy.getException());
                }
                if (left.decrementAndGet() == 0) {
                    if (handedBack.get() != null) {
                        exchange.setException(handedBack.get());
                    }
                    callback.done(false);
                }
            });
        }
        return false;
    }

    private record Partner(String name, MatchQueues queues, Booking booking, Meters meters, Counter[] counter) {
        Partner(String name, MatchQueues queues, Booking booking, Meters meters) {
            this(name, queues, booking, meters, new Counter[1]);
        }

        Counter notBooked() {
            Counter c = counter[0];
            if (c == null) {
                counter[0] = c = Counter.builder("liveodds.messages.not_booked").tags(meters.tags())
                        .description("messages not pushed to a partner because it has not booked their match")
                        .register(meters.registry());
            }
            return c;
        }
    }
}
