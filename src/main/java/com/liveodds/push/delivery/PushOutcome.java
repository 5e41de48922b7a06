package com.liveodds.push.delivery;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.camel.Exchange;

/**
 * What became of one push, for those outside delivery that need to know: the dead-letter store (what it writes
 * down), the HTTP source (its receipt) and the dead-letter replay (delivered or not). A copy taken from delivery's
 * own progress of the push, which nobody outside {@code delivery} reads.
 *
 * @param outcome           {@code delivered}, {@code dead_lettered}, {@code handed_back}, {@code failed},
 *                          {@code superseded}, {@code not_booked} or {@code refused}; null while the push goes on
 * @param reason            why it was dead-lettered, handed back or superseded, or null
 * @param attempts          attempts made
 * @param lastStatus        HTTP status of the last answer, 0 when there was none
 * @param lastResponseBody  body of the last answer, or null
 * @param lastError         why the last attempt failed, or null
 * @param firstAttemptAt    when the first attempt began
 */
public record PushOutcome(Push push, String outcome, String reason, int attempts, int lastStatus, String lastResponseBody,
                          String lastError, Instant firstAttemptAt) {

    /**
     * Exchange variable: with several partners and a source shared by them (the HTTP source), each partner's outcome by
     * partner name ({@code not_booked} for a partner that has not booked the match).
     */
    public static final String BY_PARTNER = "liveoddsOutcomes";

    /** Each partner's outcome, in the order of the partners, or null when the push went to one partner only. */
    @SuppressWarnings("unchecked")
    public static Map<String, PushOutcome> byPartner(Exchange exchange) {
        Map<String, PushOutcome> outcomes = exchange.getVariable(BY_PARTNER, Map.class);
        if (outcomes == null) {
            return null;
        }
        synchronized (outcomes) {
            return new LinkedHashMap<>(outcomes);
        }
    }

    /** The outcome of the push the exchange carried, or null when it never reached delivery (an alive, a rejection). */
    public static PushOutcome of(Exchange exchange) {
        DeliveryState state = exchange.getVariable(DeliveryState.VARIABLE, DeliveryState.class);
        return state == null ? null : state.getResult();
    }

    public boolean isDelivered() {
        return "delivered".equals(outcome);
    }

    public boolean isDeadLettered() {
        return "dead_lettered".equals(outcome);
    }

    /** A recovered push the partner did not take: counted by its recovery, not dead-lettered. */
    public boolean isRefused() {
        return "refused".equals(outcome);
    }

    /** Why it was dead-lettered, or null when it was not. */
    public String deadLetterReason() {
        return isDeadLettered() ? reason : null;
    }
}
