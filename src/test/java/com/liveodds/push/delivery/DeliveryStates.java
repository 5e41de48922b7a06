package com.liveodds.push.delivery;

import java.time.Instant;

/** Test help: a delivery that ended with this outcome, as the push route leaves it on the exchange. */
public final class DeliveryStates {

    private DeliveryStates() {
    }

    public static DeliveryState ended(Push push, DeliveryState.Outcome outcome, String reason) {
        DeliveryState state = new DeliveryState(push, Instant.now());
        state.attemptStarted();
        state.end(outcome, reason);
        return state;
    }
}
