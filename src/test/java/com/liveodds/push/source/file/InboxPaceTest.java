package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.apache.camel.component.file.FileEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single partner's inbox is listed at every poll unless many files are in hand and delivery works through them;
 * then at least every longestWait.
 */
class InboxPaceTest {

    @TempDir
    Path inbox;
    private final DefaultCamelContext camel = new DefaultCamelContext();
    private FileEndpoint endpoint;

    @BeforeEach
    void start() {
        endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
        endpoint.setInProgressRepository(new InboxInProgress(100));
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
    }

    @Test
    void fewFilesInHandTheInboxIsListedAtEveryPoll() {
        inHand(2);
        InboxPace pace = new InboxPace(3, Duration.ofHours(1));

        assertThat(pace.begin(null, endpoint)).isTrue();
        assertThat(pace.begin(null, endpoint)).isTrue();
    }

    @Test
    void manyFilesInHandThatDeliveryWorksThroughTheListingWaitsUntilTheyAreFewer() {
        inHand(5);
        InboxPace pace = new InboxPace(3, Duration.ofHours(1));
        assertThat(pace.begin(null, endpoint)).as("the listing that took them").isTrue();

        ended("f-0.json");
        assertThat(pace.begin(null, endpoint)).as("four in hand, one ended since").isFalse();
        ended("f-1.json");
        assertThat(pace.begin(null, endpoint)).as("three in hand, one ended since").isFalse();
        ended("f-2.json");
        assertThat(pace.begin(null, endpoint)).as("two in hand").isTrue();
    }

    @Test
    void theFilesAListingTookAreInHandAndGoingOnceDeliveryEndsOneOfThem() {
        InboxPace pace = new InboxPace(3, Duration.ofHours(1));
        assertThat(pace.begin(null, endpoint)).as("nothing in hand").isTrue();
        inHand(5);
        pace.commit(null, endpoint, 5);

        ended("f-0.json");
        assertThat(pace.begin(null, endpoint)).as("four in hand, one ended since the listing took five").isFalse();
        assertThat(pace.begin(null, endpoint)).as("none ended since the last poll").isTrue();
    }

    @Test
    void manyFilesInHandThatDoNotMoveNeverHoldTheListingBack() {
        inHand(5);
        InboxPace pace = new InboxPace(3, Duration.ofHours(1));

        assertThat(pace.begin(null, endpoint)).isTrue();
        assertThat(pace.begin(null, endpoint)).as("none ended since the last poll: a match in retry").isTrue();
        assertThat(pace.begin(null, endpoint)).isTrue();
    }

    @Test
    void manyFilesInHandTheInboxIsStillListedOnceTheLongestWaitIsOver() {
        inHand(5);
        InboxPace pace = new InboxPace(3, Duration.ZERO);
        assertThat(pace.begin(null, endpoint)).isTrue();

        ended("f-0.json");
        assertThat(pace.begin(null, endpoint)).isTrue();
    }

    private void inHand(int files) {
        for (int i = 0; i < files; i++) {
            endpoint.getInProgressRepository().add("f-" + i + ".json");
        }
    }

    private void ended(String file) {
        endpoint.getInProgressRepository().remove(file);
    }
}
