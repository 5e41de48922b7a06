package com.liveodds.push.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import com.liveodds.push.ingest.RejectedMessageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's count (for the metric and the status page) and its newest letters, without listing on every read. */
class DeadLetterStoreTest {

    @Test
    void countIsListedOnceThenFollowsWritesAndRemovals(@TempDir Path dir) throws Exception {
        new DeadLetterStore(dir.toString()).rejected(bytes("{\"message_id\":\"old-1\"}"), rejection("left from a previous run"));
        DeadLetterStore store = new DeadLetterStore(dir.toString());
        assertThat(store.count()).isEqualTo(1);

        store.rejected(bytes("{\"message_id\":\"m-2\",\"message_type\":\"odds\"}"), rejection("missing field odds_type"));
        store.rejected(bytes("not json"), rejection("not JSON"));
        assertThat(store.count()).isEqualTo(3);

        // a file dropped by hand is not seen until the store is listed again (a scrape never lists the folder)
        Files.writeString(dir.resolve("20000101T000000000Z-00000000-by-hand.json"), "{\"message_id\":\"by-hand\"}");
        assertThat(store.count()).isEqualTo(3);
        assertThat(store.list()).hasSize(4);
        assertThat(store.count()).isEqualTo(4);

        store.remove(store.list().get(0));
        assertThat(store.count()).isEqualTo(3);
        store.remove(new DeadLetterStore.DeadLetter(dir.resolve("gone.json"), null, null, null, "rejected", null, null));
        assertThat(store.count()).as("removing what is not there changes nothing").isEqualTo(3);
    }

    @Test
    void newestComeFirstWithTheirFileNameAsId(@TempDir Path dir) throws Exception {
        DeadLetterStore store = new DeadLetterStore(dir.toString());
        assertThat(store.newest(50)).isEmpty();
        for (int i = 1; i <= 5; i++) {
            store.rejected(bytes("{\"message_id\":\"m-" + i + "\",\"message_type\":\"odds\"}"), rejection("reason " + i));
        }
        var newest = store.newest(3);
        assertThat(newest).extracting(DeadLetterStore.Summary::messageId).containsExactly("m-5", "m-4", "m-3");
        assertThat(newest.get(0).reason()).isEqualTo("reason 5");
        assertThat(newest.get(0).type()).isEqualTo("odds");
        assertThat(newest.get(0).at()).isNotBlank();
        assertThat(dir.resolve(newest.get(0).id())).exists();
        assertThat(store.list()).extracting(DeadLetterStore.DeadLetter::id).contains(newest.get(0).id());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static RejectedMessageException rejection(String why) {
        return new RejectedMessageException(RejectedMessageException.Reason.MISSING_FIELD, why);
    }
}
