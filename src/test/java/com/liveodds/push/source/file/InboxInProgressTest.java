package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The inbox's files in hand: exactly those, never one evicted while in hand, at most so many. */
class InboxInProgressTest {

    private final InboxInProgress inProgress = new InboxInProgress(2);

    @Test
    void aFileIsInHandFromItsListingUntilItEnds() {
        assertThat(inProgress.add("a.json")).isTrue();
        assertThat(inProgress.add("a.json")).as("listed again while in hand: skipped").isFalse();
        assertThat(inProgress.contains("a.json")).isTrue();

        assertThat(inProgress.remove("a.json")).isTrue();

        assertThat(inProgress.contains("a.json")).isFalse();
        assertThat(inProgress.size()).isZero();
        assertThat(inProgress.add("a.json")).as("a new file of that name, later").isTrue();
    }

    @Test
    void fullItTakesNoMoreFilesAndKeepsThoseInHand() {
        inProgress.add("a.json");
        inProgress.add("b.json");

        assertThat(inProgress.add("c.json")).as("waits in the inbox for a later listing").isFalse();

        assertThat(inProgress.contains("a.json")).as("not evicted: the next listing would read it again").isTrue();
        assertThat(inProgress.contains("b.json")).isTrue();
        inProgress.remove("a.json");
        assertThat(inProgress.add("c.json")).isTrue();
    }

    @Test
    void itHoldsCamelsPathsByTheFileName() {
        inProgress.add("/srv/liveodds/inbox/a.json");

        assertThat(inProgress.holds("a.json")).as("the inbox is one folder: its name is the file").isTrue();
        assertThat(inProgress.contains("/srv/liveodds/inbox/a.json")).isTrue();
        inProgress.remove("/srv/liveodds/inbox/a.json");
        assertThat(inProgress.holds("a.json")).isFalse();
    }
}
