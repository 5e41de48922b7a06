package com.liveodds.push.partner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.liveodds.push.ops.LogSafe;

/**
 * The matches a partner has booked (contract section 16): {@code all}, or a file of match ids ({@code match:<digits>}
 * or digits, one a line, blank lines and {@code #} comments allowed). The file is looked at again at most once a
 * second when asked, so an edit is in force within a second or two; a file that goes missing or unreadable keeps the
 * last good booking (logged once per change).
 */
public final class Booking {

    public static final Booking ALL = new Booking(null);
    private static final Logger LOG = LoggerFactory.getLogger(Booking.class);
    private static final Pattern MATCH = Pattern.compile("(?:match:)?(\\d{1,30})");
    private static final long LOOK_EVERY_NANOS = 1_000_000_000L;

    private final Path file;
    private volatile Set<String> booked = Set.of();
    private volatile long lookedAt;
    private volatile Object seen;

    private Booking(Path file) {
        this.file = file;
    }

    /** {@code all} or the path of a booking file; a file that cannot be read now stops start-up naming the key. */
    public static Booking of(String setting, String key) {
        if (setting == null || setting.isBlank() || "all".equalsIgnoreCase(setting.trim())) {
            return ALL;
        }
        Path file = Path.of(setting.trim());
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(key + ": booking file " + file + " is not a readable file (or write all)");
        }
        Booking booking = new Booking(file);
        booking.reload(true);
        return booking;
    }

    public boolean isAll() {
        return file == null;
    }

    /** Whether the match ({@code match:<digits>}) is booked. */
    public boolean isBooked(String matchId) {
        if (file == null) {
            return true;
        }
        lookAgain();
        return booked.contains(matchId);
    }

    /** The booked match ids ({@code match:<digits>}); null for {@code all}. */
    public Set<String> matchIds() {
        if (file == null) {
            return null;
        }
        lookAgain();
        return booked;
    }

    private void lookAgain() {
        long now = System.nanoTime();
        if (now - lookedAt >= LOOK_EVERY_NANOS) {
            synchronized (this) {
                if (now - lookedAt >= LOOK_EVERY_NANOS) {
                    lookedAt = now;
                    reload(false);
                }
            }
        }
    }

    private void reload(boolean first) {
        Object version;
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            version = modified.toMillis() + ":" + Files.size(file);
        } catch (IOException e) {
            version = "missing";
        }
        if (version.equals(seen)) {
            return;
        }
        seen = version;
        try {
            Set<String> ids = new HashSet<>();
            for (String line : Files.readAllLines(file)) {
                String entry = line.strip();
                if (entry.isEmpty() || entry.startsWith("#")) {
                    continue;
                }
                var m = MATCH.matcher(entry);
                if (m.matches()) {
                    ids.add("match:" + m.group(1));
                } else {
                    LOG.warn("Booking {}: skipped a line that is no match id: {}", file, LogSafe.escape(entry));
                }
            }
            booked = Set.copyOf(ids);
            if (!first) {
                LOG.info("Booking {} re-read: {} matches booked", file, ids.size());
            }
        } catch (IOException e) {
            if (first) {
                throw new IllegalArgumentException("booking file " + file + " cannot be read: " + e.getMessage());
            }
            LOG.warn("Booking {} cannot be read ({}); the last good booking of {} matches stays in force", file,
                    e.getMessage(), booked.size());
        }
    }

    @Override
    public String toString() {
        return file == null ? "all" : file.toString();
    }
}
