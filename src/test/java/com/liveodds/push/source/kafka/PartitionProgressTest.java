package com.liveodds.push.source.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

class PartitionProgressTest {

    @Test
    void onlyTheContiguousFinishedPrefixIsCommittable() throws Exception {
        PartitionProgress progress = new PartitionProgress();
        for (long offset = 10; offset <= 14; offset++) {
            progress.handedOn(offset);
        }
        assertThat(progress.toCommit()).isEmpty();

        progress.finished(12);
        progress.finished(13);
        assertThat(progress.toCommit()).as("10 and 11 are still open").isEmpty();

        progress.finished(10);
        assertThat(progress.toCommit()).isEqualTo(OptionalLong.of(11));
        progress.committed(11);
        assertThat(progress.toCommit()).isEmpty();

        progress.finished(11);
        assertThat(progress.toCommit()).as("11, 12 and 13 done: resume at 14").isEqualTo(OptionalLong.of(14));
        assertThat(progress.pending()).isEqualTo(1);
    }

    @Test
    void gapsInOffsetsDoNotHoldThePrefixBack() {
        PartitionProgress progress = new PartitionProgress();
        progress.handedOn(3);
        progress.handedOn(7);
        progress.finished(7);
        progress.finished(3);
        assertThat(progress.toCommit()).isEqualTo(OptionalLong.of(8));
    }

    @Test
    void anAbandonedRecordHoldsThePrefixButCountsAsSettled() throws Exception {
        PartitionProgress progress = new PartitionProgress();
        progress.handedOn(0);
        progress.handedOn(1);
        progress.handedOn(2);
        progress.finished(0);
        progress.abandoned(1);
        assertThat(progress.awaitSettled(0)).isFalse();
        progress.finished(2);

        assertThat(progress.awaitSettled(0)).isTrue();
        assertThat(progress.toCommit()).isEqualTo(OptionalLong.of(1));
    }

    @Test
    void waitingForSettlementEndsWhenTheLastPendingRecordSettles() throws Exception {
        PartitionProgress progress = new PartitionProgress();
        progress.handedOn(5);
        Thread lane = new Thread(() -> progress.finished(5));
        lane.start();
        assertThat(progress.awaitSettled(10_000)).isTrue();
        lane.join();
        assertThat(progress.toCommit()).isEqualTo(OptionalLong.of(6));
    }
}
