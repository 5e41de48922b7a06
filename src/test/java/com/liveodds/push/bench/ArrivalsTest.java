package com.liveodds.push.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;

import org.junit.jupiter.api.Test;

/** The bench's order and loss verdict: what makes a run fail must be exactly a reorder, a loss or a mislabelled push. */
class ArrivalsTest {

    // 6 messages over 2 matches: match 0 gets 0, 2, 4; match 1 gets 1, 3, 5
    private final Load load = new Load("t", 6, 2);
    private final Arrivals arrivals = new Arrivals(load);

    private void accept(int... indexes) {
        for (int i : indexes) {
            arrivals.arrived(load.matchId(load.matchOf(i)), load.id(i), load.id(i), System.nanoTime(), true);
            arrivals.answered(i);
        }
    }

    @Test
    void inOrderPerMatchWithARepeatOfTheSameKeyPasses() {
        accept(1, 0, 2, 3, 2, 4, 5);

        assertThat(arrivals.verdict(Set.of())).isEmpty();
        assertThat(arrivals.repeats.sum()).isEqualTo(1);
        assertThat(arrivals.delivered()).isEqualTo(6);
    }

    @Test
    void aMessageOvertakenWithinItsMatchIsReported() {
        accept(0, 4, 2, 1, 3, 5);

        assertThat(arrivals.verdict(Set.of())).containsExactly("order broken at " + load.matchId(0) + ": t-0000002 arrived after t-0000004");
    }

    @Test
    void aMessageNeitherDeliveredNorDeadLetteredIsLost() {
        accept(0, 1, 3, 4, 5);

        assertThat(arrivals.verdict(Set.of("t-0000002"))).isEmpty();
        assertThat(arrivals.verdict(Set.of())).containsExactly("1 messages neither delivered nor dead-lettered, e.g. [t-0000002]");
    }

    @Test
    void aRefusedAttemptIsNotADeliveryAndAMislabelledPushIsReported() {
        arrivals.arrived(load.matchId(0), load.id(0), load.id(0), System.nanoTime(), false);
        arrivals.arrived(load.matchId(1), load.id(0), "other", System.nanoTime(), true);

        assertThat(arrivals.refused.sum()).isEqualTo(1);
        assertThat(arrivals.verdict(Set.of())).contains(
                "message t-0000000 carried Idempotency-Key t-0000000 but message_id other",
                "message t-0000000 pushed to " + load.matchId(1) + ", expected " + load.matchId(0));
    }
}
