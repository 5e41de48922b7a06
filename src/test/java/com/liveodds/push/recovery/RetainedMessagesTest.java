package com.liveodds.push.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.liveodds.push.delivery.Push;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store of what recovery pushes again, on a real SQLite file: a match's current odds are its latest snapshot and
 * the odds after it (the earlier ones are dropped as the snapshot comes), a message accepted twice keeps its first
 * place, a page read for a recovery is bounded in body characters, what is older than the retention is pruned, the file is made with the first message kept, and a retention
 * of 0 keeps nothing and makes no file.
 */
class RetainedMessagesTest {

    @TempDir
    Path dir;

    @Test
    void aMatchsCurrentOddsStartAtItsLatestSnapshotAndTheSettlementsFollowTheirTime() throws Exception {
        RetainedMessages store = new RetainedMessages(dir, Duration.ofHours(10));
        try {
            // no file until there is something to keep
            assertThat(store.matches()).isEmpty();
            assertThat(dir.resolve("retained.db")).doesNotExist();
            accept(store, "d1", "odds", false);
            accept(store, "s1", "market_settlement", false);
            accept(store, "snap", "odds", true);
            Instant after = Instant.now();
            await().until(() -> Instant.now().toEpochMilli() > after.toEpochMilli());
            accept(store, "d2", "odds", false);
            accept(store, "s2", "rollback_settlement", false);
            accept(store, "s1", "market_settlement", false);

            RetainedMessages.Selection all = new RetainedMessages.Selection("match:7", null, store.newest());
            assertThat(ids(store.page(all, 0, Long.MAX_VALUE))).containsExactly("s1", "snap", "d2", "s2");
            RetainedMessages.Selection since = new RetainedMessages.Selection("match:7", after, store.newest());
            assertThat(ids(store.page(since, 0, Long.MAX_VALUE))).containsExactly("snap", "d2", "s2");
            assertThat(store.count(since)).isEqualTo(3);
            // what is accepted after the request goes live, not with the recovery
            RetainedMessages.Selection earlier = new RetainedMessages.Selection("match:7", null, store.newest() - 1);
            assertThat(ids(store.page(earlier, 0, Long.MAX_VALUE))).containsExactly("s1", "snap", "d2");
            assertThat(store.matches()).containsExactly("match:7");
            // the odds before the snapshot are gone from the file, not only left out of the answers
            assertThat(storedIds()).containsExactly("s1", "snap", "d2", "s2");
        } finally {
            store.stop();
        }
    }

    private List<String> storedIds() throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("retained.db"));
             Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT message_id FROM retained ORDER BY seq")) {
            while (r.next()) {
                ids.add(r.getString(1));
            }
        }
        return ids;
    }

    /** Several instances on Kafka: the topic's records with their partition, and where the reader goes on, together. */
    @Test
    void recordsOfTheTopicKeepTheirPartitionAndTheReadersPositionAlsoInAFileMadeBefore() throws Exception {
        // a file as a release without the topic's columns made it, with one message ingest kept
        Files.createDirectories(dir);
        try (Connection old = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("retained.db"));
             Statement s = old.createStatement()) {
            s.execute("CREATE TABLE retained (seq INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL, "
                    + "message_id TEXT NOT NULL, type TEXT NOT NULL, snapshot INTEGER NOT NULL, accepted_at INTEGER NOT NULL, "
                    + "body TEXT NOT NULL)");
            s.execute("INSERT INTO retained (match_id, message_id, type, snapshot, accepted_at, body) "
                    + "VALUES ('match:7', 'before', 'market_settlement', 0, 1000, '{}')");
        }
        RetainedMessages store = new RetainedMessages(dir, Duration.ofHours(10));
        try {
            assertThat(store.topicPositions("t")).isEmpty();
            assertThat(store.newestAcceptedAt()).isEqualTo(Instant.ofEpochMilli(1000));
            assertThat(store.partitionOf("match:7")).isEmpty();
            Instant at = Instant.now().minusSeconds(5);
            store.keepFromTopic("t", List.of(new RetainedMessages.TopicRecord(push("d0", "odds", false), 3, at),
                    new RetainedMessages.TopicRecord(push("snap", "odds", true), 3, at),
                    new RetainedMessages.TopicRecord(push("d1", "odds", false), 3, at)), Map.of(3, 12L, 1, 4L));
            assertThat(store.topicPositions("t")).containsOnly(Map.entry(3, 12L), Map.entry(1, 4L));
            assertThat(store.topicPositions("other")).isEmpty();
            assertThat(store.partitionOf("match:7")).hasValue(3);
            assertThat(store.newestAcceptedAt()).isEqualTo(Instant.ofEpochMilli(at.toEpochMilli()));
            RetainedMessages.Selection all = new RetainedMessages.Selection("match:7", null, store.newest());
            assertThat(ids(store.page(all, 0, Long.MAX_VALUE))).containsExactly("before", "snap", "d1");
            // the snapshot in the middle of one batch drops the odds before it from the file
            assertThat(storedIds()).containsExactly("before", "snap", "d1");
        } finally {
            store.stop();
        }
    }

    /** Contract 22: what a recovery reads at once is bounded in bytes, not only in messages. */
    @Test
    void aPageHoldsAtMostTheGivenCharactersOfBodiesAndAlwaysOneMessage() throws Exception {
        RetainedMessages store = new RetainedMessages(dir, Duration.ofHours(10));
        try {
            for (String id : List.of("a", "b", "c", "d")) {
                store.accepted(new Push(id, "match:7", "market_settlement", "{\"pad\":\"" + "x".repeat(990) + "\"}", null,
                        Instant.now()));
            }
            RetainedMessages.Selection all = new RetainedMessages.Selection("match:7", null, store.newest());
            List<RetainedMessages.Retained> first = store.page(all, 0, 2500);
            assertThat(ids(first)).containsExactly("a", "b");
            assertThat(ids(store.page(all, first.get(1).seq(), 2500))).containsExactly("c", "d");
            assertThat(ids(store.page(all, 0, 10))).as("a body larger than the page still comes, alone").containsExactly("a");
        } finally {
            store.stop();
        }
    }

    @Test
    void whatIsOlderThanTheRetentionIsPruned() throws Exception {
        RetainedMessages store = new RetainedMessages(dir, Duration.ofMillis(50));
        try {
            for (int i = 0; i < 5000; i++) {
                accept(store, "m" + i, "market_settlement", false);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> store.prune() >= 0 && store.matches().isEmpty());
        } finally {
            store.stop();
        }
    }

    @Test
    void aRetentionOfZeroKeepsNothing() throws Exception {
        RetainedMessages store = new RetainedMessages(dir.resolve("off"), Duration.ZERO);
        accept(store, "m", "odds", true);
        assertThat(store.matches()).isEmpty();
        assertThat(store.newest()).isZero();
        assertThat(Files.exists(dir.resolve("off"))).isFalse();
        store.stop();
    }

    private static void accept(RetainedMessages store, String id, String type, boolean snapshot) throws Exception {
        store.accepted(push(id, type, snapshot));
    }

    private static Push push(String id, String type, boolean snapshot) {
        return new Push(id, "match:7", type, "{\"message_id\":\"" + id + "\"}", null, Instant.now(), snapshot ? "snapshot" : "delta");
    }

    private static List<String> ids(List<RetainedMessages.Retained> page) {
        return page.stream().map(RetainedMessages.Retained::messageId).toList();
    }
}
