package com.liveodds.push.recovery;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

import com.liveodds.push.delivery.Push;
import com.liveodds.push.ingest.UpstreamMessage;
import com.liveodds.push.ops.Meters;
import io.micrometer.core.instrument.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

/**
 * What recovery pushes again (contract 20): every message the service accepted (validated, its match resolved: the
 * body as pushed), per match, with its time of acceptance, for {@code liveodds.recovery.retention}. Kept in an SQLite
 * database file ({@code <liveodds.recovery.dir>/retained.db}) in WAL mode: each message is committed before it is
 * handed to delivery, so what a source has had acknowledged is in the file, and a {@code kill -9} loses nothing (the
 * commit is in the operating system's hands; {@code synchronous=NORMAL} leaves out the fsync a power cut would need).
 * A message that cannot be kept (a full disk) is still delivered: the failure is logged once, until keeping works
 * again, and counted ({@code liveodds_recovery_not_retained_total}); a recovery misses what was not kept.
 * Recoveries read on a connection of their own (WAL: a reader never holds up a writer), so reading the store for a
 * recovery never makes ingest wait, and a page of them holds at most a given number of body characters.
 * Pruned past the retention (and the odds before a match's latest snapshot, which recovery never sends), so the file
 * stays bounded by what the retention holds; freed pages are reused and given back by incremental vacuum.
 * A message is kept once per match: accepted again (a dead letter replayed), it keeps its first place. The file is
 * made with the first message kept; a retention of {@code 0} keeps nothing and makes no file.
 * <p>
 * With several instances on Kafka every instance keeps every record of the topic ({@link #keepFromTopic}, from a
 * reader outside the consumer groups): each row then knows its partition, and the next offset to read of
 * each partition is committed in the same transaction as the rows, so the reader resumes exactly where it stopped
 * (reading a record twice would put an odds message the latest snapshot dropped back after it).
 */
public class RetainedMessages {

    private static final Logger LOG = LoggerFactory.getLogger(RetainedMessages.class);
    /** Rows read at once when pushing a match again. */
    private static final int PAGE = 500;
    private static final String FILE = "retained.db";
    /** Messages dropped at once by {@link #prune}. */
    private static final int PRUNE_BATCH = 2000;
    /**
     * A selection: match, after a sequence number, up to another; odds from the latest snapshot on, settlements and
     * rollbacks accepted after a time.
     */
    private static final String SELECTED = " WHERE match_id = ? AND seq > ? AND seq <= ? AND ((type = 'odds' AND seq >= ?)"
            + " OR (type <> 'odds' AND accepted_at > ?))";

    private final Path dir;
    private final Duration retention;
    private Connection db;
    private PreparedStatement insert;
    private PreparedStatement dropOlderOdds;
    private PreparedStatement position;
    /** The recoveries' reads, on a connection of their own, one at a time under {@link #reading}. */
    private final Object reading = new Object();
    private Connection reader;
    private PreparedStatement latestSnapshot;
    private PreparedStatement countQuery;
    private PreparedStatement pageQuery;
    private final AtomicBoolean keeping = new AtomicBoolean(true);
    private volatile Meters meters;

    public RetainedMessages(Path dir, Duration retention) {
        this.dir = dir;
        this.retention = retention;
    }

    public boolean isOn() {
        return !retention.isZero() && !retention.isNegative();
    }

    public Duration retention() {
        return retention;
    }

    /** The earliest time a recovery may ask for: now minus the retention. */
    public Instant earliest(Instant now) {
        return now.minus(retention);
    }

    /**
     * Opens the file, made at the first message kept (a service that never accepts one, or a retention of 0, leaves
     * none behind); null while there is none.
     */
    /** The meter registry of the bundle, for the messages that could not be kept. */
    public void setMeters(Meters meters) {
        this.meters = meters;
    }

    private Connection db(boolean create) throws SQLException {
        if (db != null || !isOn() || !create && !Files.exists(dir.resolve(FILE))) {
            return db;
        }
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new SQLException("cannot make " + dir + ": " + e.getMessage(), e);
        }
        Path file = dir.resolve(FILE);
        SQLiteConfig config = new SQLiteConfig();
        // no SELECT last_insert_rowid() after every insert: the snapshot's delete asks for it in its own statement
        config.setGetGeneratedKeys(false);
        db = config.createConnection("jdbc:sqlite:" + file.toAbsolutePath());
        try (Statement s = db.createStatement()) {
            s.execute("PRAGMA busy_timeout=10000");
            // before the first table: pages freed by pruning are given back to the file system in steps
            s.execute("PRAGMA auto_vacuum=INCREMENTAL");
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=NORMAL");
            s.execute("CREATE TABLE IF NOT EXISTS retained (seq INTEGER PRIMARY KEY AUTOINCREMENT, match_id TEXT NOT NULL, "
                    + "message_id TEXT NOT NULL, type TEXT NOT NULL, snapshot INTEGER NOT NULL, accepted_at INTEGER NOT NULL, "
                    + "body TEXT NOT NULL)");
            s.execute("CREATE INDEX IF NOT EXISTS retained_match ON retained (match_id, seq)");
            s.execute("CREATE INDEX IF NOT EXISTS retained_time ON retained (accepted_at)");
            // a message accepted again (a dead letter replayed) keeps its first place
            s.execute("CREATE UNIQUE INDEX IF NOT EXISTS retained_message ON retained (match_id, message_id)");
            // a record of the Kafka topic: its partition there (a file made before the column gets it now)
            boolean hasPartition = false;
            try (ResultSet r = s.executeQuery("PRAGMA table_info(retained)")) {
                while (r.next()) {
                    hasPartition |= "topic_partition".equals(r.getString("name"));
                }
            }
            if (!hasPartition) {
                s.execute("ALTER TABLE retained ADD COLUMN topic_partition INTEGER");
            }
            s.execute("CREATE TABLE IF NOT EXISTS topic_position (topic TEXT NOT NULL, topic_partition INTEGER NOT NULL, "
                    + "next_offset INTEGER NOT NULL, PRIMARY KEY (topic, topic_partition))");
        }
        insert = db.prepareStatement("INSERT OR IGNORE INTO retained (match_id, message_id, type, snapshot, accepted_at, body,"
                + " topic_partition) VALUES (?, ?, ?, ?, ?, ?, ?)");
        position = db.prepareStatement("INSERT OR REPLACE INTO topic_position (topic, topic_partition, next_offset) VALUES (?, ?, ?)");
        dropOlderOdds = db.prepareStatement("DELETE FROM retained WHERE match_id = ? AND type = 'odds' AND seq < last_insert_rowid()");
        LOG.info("Recovery: accepted messages kept for {} in {}", retention, file);
        return db;
    }

    /** Under {@link #reading}: the recoveries' connection, once the file exists (made by the writer); null before. */
    private Connection reader() throws SQLException {
        if (reader != null) {
            return reader;
        }
        synchronized (this) {
            if (db(false) == null) {
                return null;
            }
        }
        reader = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(FILE).toAbsolutePath());
        try (Statement s = reader.createStatement()) {
            s.execute("PRAGMA busy_timeout=10000");
        }
        latestSnapshot = reader.prepareStatement(
                "SELECT coalesce(max(seq), 0) FROM retained WHERE match_id = ? AND snapshot = 1 AND seq <= ?");
        countQuery = reader.prepareStatement("SELECT count(*) FROM retained" + SELECTED);
        // the body's length before the body: a page stops before a body that would take it past its characters
        pageQuery = reader.prepareStatement("SELECT seq, message_id, type, snapshot, length(body), body FROM retained"
                + SELECTED + " ORDER BY seq LIMIT " + PAGE);
        return reader;
    }

    public void stop() throws SQLException {
        synchronized (reading) {
            if (reader != null) {
                reader.close();
                reader = null;
            }
        }
        synchronized (this) {
            if (db != null) {
                db.close();
                db = null;
            }
        }
    }

    /**
     * Keeps an accepted push, committed before it goes on to delivery; a snapshot drops the odds of its match before
     * it. A failure to keep it (a full disk) does not fail the message: live delivery goes on, the first failure is
     * logged (and the return once keeping works again), each one counted.
     */
    public void accepted(Push push) {
        if (push.isHeartbeat()) {
            return;
        }
        try {
            synchronized (this) {
                if (db(true) == null) {
                    return;
                }
                long now = System.currentTimeMillis();
                if (push.isSnapshot()) {
                    inTransaction(() -> keep(push, now, null));
                } else {
                    // one statement commits on its own: an explicit transaction would cost three more round trips
                    keep(push, now, null);
                }
            }
            if (keeping.compareAndSet(false, true)) {
                LOG.info("Recovery: accepted messages are kept in {} again", dir.resolve(FILE));
            }
        } catch (SQLException e) {
            Meters bundle = Meters.orOf(meters, null);
            Counter.builder("liveodds.recovery.not_retained").tags(bundle.tags())
                    .description("accepted messages that could not be kept for recovery (delivered all the same)")
                    .register(bundle.registry()).increment();
            if (keeping.compareAndSet(true, false)) {
                LOG.error("Recovery: accepted messages cannot be kept in {} ({}): they are delivered all the same, and a"
                        + " recovery will not have them until keeping works again (liveodds_recovery_not_retained_total"
                        + " counts them)", dir.resolve(FILE), e.getMessage());
            }
        }
    }

    /**
     * Keeps records of the upstream Kafka topic, in the topic's order, and where the reader goes on from ({@code next}:
     * partition → next offset, records that make no push included), in one transaction.
     */
    public synchronized void keepFromTopic(String topic, List<TopicRecord> records, Map<Integer, Long> next) throws SQLException {
        if (db(true) == null) {
            return;
        }
        inTransaction(() -> {
            for (TopicRecord record : records) {
                keep(record.push(), record.at().toEpochMilli(), record);
            }
            for (Map.Entry<Integer, Long> partition : next.entrySet()) {
                position.setString(1, topic);
                position.setInt(2, partition.getKey());
                position.setLong(3, partition.getValue());
                position.executeUpdate();
            }
        });
    }

    /** Under the monitor: the work commits as a whole, or not at all. */
    private void inTransaction(Work work) throws SQLException {
        db.setAutoCommit(false);
        try {
            work.run();
            db.commit();
        } catch (SQLException e) {
            db.rollback();
            throw e;
        } finally {
            db.setAutoCommit(true);
        }
    }

    private interface Work {
        void run() throws SQLException;
    }

    /**
     * One insert, in the caller's transaction; a snapshot drops the odds of its match before it, right after its insert:
     * the delete reads last_insert_rowid(), which the next insert on this connection changes.
     */
    private void keep(Push push, long acceptedAt, TopicRecord from) throws SQLException {
        boolean isSnapshot = push.isSnapshot();
        insert.setString(1, push.matchId());
        insert.setString(2, push.messageId());
        insert.setString(3, push.messageType());
        insert.setInt(4, isSnapshot ? 1 : 0);
        insert.setLong(5, acceptedAt);
        insert.setString(6, push.json());
        if (from == null) {
            insert.setNull(7, java.sql.Types.INTEGER);
        } else {
            insert.setInt(7, from.partition());
        }
        if (insert.executeUpdate() == 1 && isSnapshot) {
            dropOlderOdds.setString(1, push.matchId());
            dropOlderOdds.executeUpdate();
        }
    }

    /** Where the topic's reader goes on from: partition → next offset, as last kept. */
    public synchronized Map<Integer, Long> topicPositions(String topic) throws SQLException {
        Map<Integer, Long> positions = new LinkedHashMap<>();
        if (db(false) == null) {
            return positions;
        }
        try (PreparedStatement q = db.prepareStatement("SELECT topic_partition, next_offset FROM topic_position WHERE topic = ?")) {
            q.setString(1, topic);
            try (ResultSet r = q.executeQuery()) {
                while (r.next()) {
                    positions.put(r.getInt(1), r.getLong(2));
                }
            }
        }
        return positions;
    }

    /** When the newest message kept was accepted; null when none is. */
    public synchronized Instant newestAcceptedAt() throws SQLException {
        if (db(false) == null) {
            return null;
        }
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT max(accepted_at) FROM retained")) {
            long at = r.getLong(1);
            return r.wasNull() ? null : Instant.ofEpochMilli(at);
        }
    }

    /** The topic partition of a match: the one of its latest record kept from the topic; empty if none is. */
    public synchronized OptionalInt partitionOf(String matchId) throws SQLException {
        if (db(false) == null) {
            return OptionalInt.empty();
        }
        try (PreparedStatement q = db.prepareStatement("SELECT topic_partition FROM retained WHERE match_id = ?"
                + " AND topic_partition IS NOT NULL ORDER BY seq DESC LIMIT 1")) {
            q.setString(1, matchId);
            try (ResultSet r = q.executeQuery()) {
                return r.next() ? OptionalInt.of(r.getInt(1)) : OptionalInt.empty();
            }
        }
    }

    /**
     * Drops what is older than the retention, a batch at a time so that accepting messages waits for no more than one
     * batch, and gives freed pages back; the number of messages dropped.
     */
    public int prune() throws SQLException {
        long before = System.currentTimeMillis() - retention.toMillis();
        int dropped = 0;
        for (int batch = pruneBatch(before); batch > 0; batch = pruneBatch(before)) {
            dropped += batch;
        }
        synchronized (this) {
            if (db(false) != null) {
                try (Statement s = db.createStatement()) {
                    s.execute("PRAGMA incremental_vacuum");
                }
            }
        }
        // on the readers' connection: the checkpoint waits for readers without holding up the writer's monitor
        synchronized (reading) {
            if (reader() != null) {
                try (Statement s = reader.createStatement()) {
                    s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
                }
            }
        }
        if (dropped > 0) {
            LOG.debug("Recovery: {} messages past the retention dropped", dropped);
        }
        return dropped;
    }

    private synchronized int pruneBatch(long before) throws SQLException {
        if (db(false) == null) {
            return 0;
        }
        try (PreparedStatement delete = db.prepareStatement("DELETE FROM retained WHERE seq IN "
                + "(SELECT seq FROM retained WHERE accepted_at < ? ORDER BY accepted_at LIMIT " + PRUNE_BATCH + ")")) {
            delete.setLong(1, before);
            return delete.executeUpdate();
        }
    }

    /** The newest sequence number so far: a recovery pushes what was accepted up to it (later ones go live). */
    public long newest() throws SQLException {
        synchronized (reading) {
            if (reader() == null) {
                return 0;
            }
            try (Statement s = reader.createStatement();
                 ResultSet r = s.executeQuery("SELECT coalesce(max(seq), 0) FROM retained")) {
                return r.getLong(1);
            }
        }
    }

    /** Every match with a message retained, for a partner that books all. */
    public List<String> matches() throws SQLException {
        List<String> matches = new ArrayList<>();
        synchronized (reading) {
            if (reader() == null) {
                return matches;
            }
            try (Statement s = reader.createStatement();
                 ResultSet r = s.executeQuery("SELECT DISTINCT match_id FROM retained ORDER BY match_id")) {
                while (r.next()) {
                    matches.add(r.getString(1));
                }
            }
        }
        return matches;
    }

    /** How many messages {@link #page} gives for this selection in all. */
    public int count(Selection selection) throws SQLException {
        synchronized (reading) {
            if (reader() == null) {
                return 0;
            }
            bind(countQuery, selection, 0);
            try (ResultSet r = countQuery.executeQuery()) {
                return r.getInt(1);
            }
        }
    }

    /**
     * The next messages of the selection after sequence number {@code from}, in the order they were accepted: the
     * match's latest odds snapshot and every odds after it, and the settlements and rollbacks accepted after its time;
     * at most {@code maxChars} characters of bodies, but always one message when there is one.
     */
    public List<Retained> page(Selection selection, long from, long maxChars) throws SQLException {
        List<Retained> page = new ArrayList<>();
        synchronized (reading) {
            if (reader() == null) {
                return page;
            }
            bind(pageQuery, selection, from);
            long chars = 0;
            try (ResultSet r = pageQuery.executeQuery()) {
                while (r.next()) {
                    long length = r.getLong(5);
                    if (!page.isEmpty() && chars + length > maxChars) {
                        break;
                    }
                    chars += length;
                    page.add(new Retained(r.getLong(1), r.getString(2), r.getString(3), r.getString(6), r.getInt(4) == 1));
                }
            }
        }
        return page;
    }

    /** Under {@link #reading}: the selection's match, bounds and latest snapshot (found now) into a statement of {@link #SELECTED}. */
    private void bind(PreparedStatement q, Selection selection, long from) throws SQLException {
        latestSnapshot.setString(1, selection.matchId());
        latestSnapshot.setLong(2, selection.upTo());
        long snapshot;
        try (ResultSet r = latestSnapshot.executeQuery()) {
            snapshot = r.getLong(1);
        }
        q.setString(1, selection.matchId());
        q.setLong(2, from);
        q.setLong(3, selection.upTo());
        q.setLong(4, snapshot);
        q.setLong(5, selection.after() == null ? Long.MIN_VALUE : selection.after().toEpochMilli());
    }

    /** A record of the upstream topic to keep: the push it makes, its partition, and its time in the topic. */
    public record TopicRecord(Push push, int partition, Instant at) {
    }

    /** One message retained: its place in the order, id, type, the body as it was pushed, and whether it is a snapshot. */
    public record Retained(long seq, String messageId, String type, String body, boolean snapshot) {
    }

    /**
     * What one match gets again: its current odds (from its latest snapshot up to {@code upTo}), and the settlements
     * and rollbacks accepted after {@code after} (null: all retained).
     */
    public record Selection(String matchId, Instant after, long upTo) {

        /** The same, up to another sequence number. */
        public Selection upTo(long newest) {
            return new Selection(matchId, after, newest);
        }
    }
}
