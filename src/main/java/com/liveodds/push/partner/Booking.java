package com.liveodds.push.partner;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.liveodds.push.ops.LogSafe;

/**
 * The matches a partner has booked (contract section 16): {@code all}, or a file of match ids ({@code match:<digits>}
 * or digits, one a line, blank lines and {@code #} comments allowed). The file is looked at again at most once a
 * second when asked, so an edit is in force within a second or two; a file that goes missing or unreadable keeps the
 * last good booking (logged once per change). The booking API (contract 20) changes the file through {@link #book} and
 * {@link #unbook}: under a lock on {@code <file>.lock} beside it (so the instances sharing the file take turns), the
 * file is read again, the change applied, and the whole written to a hidden file beside it, synced and moved over it
 * atomically, so a reader (an operator's editor, another instance) never sees half of it, no instance's change is
 * lost, and the change is on disk when it is answered; in force here at once.
 */
public final class Booking {

    public static final Booking ALL = new Booking(null);
    private static final Logger LOG = LoggerFactory.getLogger(Booking.class);
    private static final Pattern MATCH = Pattern.compile("(?:match:)?(\\d{1,30})");
    private static final long LOOK_EVERY_NANOS = 1_000_000_000L;
    /** A file lock is held by the whole JVM: writers of one file in this JVM (services in one JVM) take turns here first. */
    private static final Map<Path, ReentrantLock> WRITERS = new ConcurrentHashMap<>();

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

    /**
     * Books the match ({@code match:<digits>}) in the booking file: a line added, the rest of the file (comments
     * included) kept. True when it was not booked before.
     *
     * @throws IllegalStateException for {@code all}, which books everything already
     */
    public boolean book(String matchId) throws IOException {
        return change(matchId, true);
    }

    /** Unbooks the match: every line naming it removed from the file. True when it was booked before. */
    public boolean unbook(String matchId) throws IOException {
        return change(matchId, false);
    }

    private boolean change(String matchId, boolean book) throws IOException {
        if (file == null) {
            throw new IllegalStateException("a partner on booking all has every match booked");
        }
        // the file itself, so that a symbolic link stays one and every instance that reaches it locks the same lock file
        Path real = file.toRealPath();
        ReentrantLock writer = WRITERS.computeIfAbsent(real, key -> new ReentrantLock());
        writer.lock();
        try (FileChannel lockFile = FileChannel.open(real.resolveSibling(real.getFileName() + ".lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock held = lockFile.lock()) {
            // read again under the lock: another instance or an operator may have changed the file since it was read
            List<String> lines = new ArrayList<>(Files.readAllLines(real, StandardCharsets.UTF_8));
            boolean was = lines.stream().anyMatch(line -> matchId.equals(idOf(line.strip())));
            if (was != book) {
                if (book) {
                    lines.add(matchId);
                } else {
                    lines.removeIf(line -> matchId.equals(idOf(line.strip())));
                }
                replace(real, lines);
                LOG.info("Booking {}: {} {} through the booking API", file, matchId, book ? "booked" : "unbooked");
            }
            Set<String> ids = idsOf(lines);
            Object version = version();
            synchronized (this) {
                booked = ids;
                seen = version;
                lookedAt = System.nanoTime();
            }
            return was != book;
        } finally {
            writer.unlock();
        }
    }

    /**
     * The file's new content, written beside it, on disk, then moved over it in one step with the file's permissions,
     * and the move on disk too: once the API has answered, a crash or power loss keeps the change.
     */
    private static void replace(Path file, List<String> lines) throws IOException {
        // one name, not a temporary file of its own each time: writers take turns under the lock, and what a killed
        // writer left behind is written over by the next one
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        try {
            Files.write(tmp, lines, StandardCharsets.UTF_8);
            try (FileChannel written = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                written.force(true);
            }
            try {
                Files.setPosixFilePermissions(tmp, Files.getPosixFilePermissions(file));
            } catch (UnsupportedOperationException notPosix) {
                // the file system keeps no POSIX permissions: nothing to carry over
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            syncFolder(file.getParent());
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The folder's entry of the moved file on disk; where a folder cannot be opened or synced, as the system keeps it. */
    private static void syncFolder(Path folder) {
        try (FileChannel entries = FileChannel.open(folder, StandardOpenOption.READ)) {
            entries.force(true);
        } catch (IOException notAllowed) {
            // Windows opens no folder as a channel: its rename is as durable as it makes it
        }
    }

    /** {@code match:<digits>} of a line of the file, or null for a blank line, a comment or a line that is no match id. */
    private static String idOf(String entry) {
        var m = MATCH.matcher(entry);
        return m.matches() ? "match:" + m.group(1) : null;
    }

    /** The match ids of the file's lines; a line that is none (nor blank, nor a comment) is skipped with a warning. */
    private Set<String> idsOf(List<String> lines) {
        Set<String> ids = new HashSet<>();
        for (String line : lines) {
            String entry = line.strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            String id = idOf(entry);
            if (id != null) {
                ids.add(id);
            } else {
                LOG.warn("Booking {}: skipped a line that is no match id: {}", file, LogSafe.escape(entry));
            }
        }
        return Set.copyOf(ids);
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

    private Object version() {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            // the time as precise as the file system keeps it: two writes in one millisecond differ too
            return modified + ":" + Files.size(file) + ":" + Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return "missing";
        }
    }

    private synchronized void reload(boolean first) {
        Object version = version();
        if (version.equals(seen)) {
            return;
        }
        seen = version;
        try {
            Set<String> ids = idsOf(Files.readAllLines(file));
            booked = ids;
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
