package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;

import org.apache.camel.component.file.FileEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single partner's inbox is listed at every poll unless many files are in hand and delivery works through them;
 * then at least every longestWait.
 */
class InboxPaceTest {

    @Test
    void fewFilesInHandTheInboxIsListedAtEveryPoll(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            inHand(endpoint, 2);
            InboxPace pace = new InboxPace(3, Duration.ofHours(1));

            assertThat(pace.begin(null, endpoint)).isTrue();
            assertThat(pace.begin(null, endpoint)).isTrue();
        }
    }

    @Test
    void manyFilesInHandThatDeliveryWorksThroughTheListingWaitsUntilTheyAreFewer(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            inHand(endpoint, 5);
            InboxPace pace = new InboxPace(3, Duration.ofHours(1));
            assertThat(pace.begin(null, endpoint)).as("the listing that took them").isTrue();

            endpoint.getInProgressRepository().remove("f-0.json");
            assertThat(pace.begin(null, endpoint)).as("four in hand, one ended since").isFalse();
            endpoint.getInProgressRepository().remove("f-1.json");
            assertThat(pace.begin(null, endpoint)).as("three in hand, one ended since").isFalse();
            endpoint.getInProgressRepository().remove("f-2.json");
            assertThat(pace.begin(null, endpoint)).as("two in hand").isTrue();
        }
    }

    @Test
    void manyFilesInHandThatDoNotMoveNeverHoldTheListingBack(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            inHand(endpoint, 5);
            InboxPace pace = new InboxPace(3, Duration.ofHours(1));

            assertThat(pace.begin(null, endpoint)).isTrue();
            assertThat(pace.begin(null, endpoint)).as("none ended since the last poll: a match in retry").isTrue();
            assertThat(pace.begin(null, endpoint)).isTrue();
        }
    }

    @Test
    void manyFilesInHandTheInboxIsStillListedOnceTheLongestWaitIsOver(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            inHand(endpoint, 5);
            InboxPace pace = new InboxPace(3, Duration.ZERO);
            assertThat(pace.begin(null, endpoint)).isTrue();

            endpoint.getInProgressRepository().remove("f-0.json");
            assertThat(pace.begin(null, endpoint)).isTrue();
        }
    }

    private static void inHand(FileEndpoint endpoint, int files) {
        for (int i = 0; i < files; i++) {
            endpoint.getInProgressRepository().add("f-" + i + ".json");
        }
    }
}
