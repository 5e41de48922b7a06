package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.RejectedMessageException.Reason;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.ops.LogSafe;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.OptimizedFileFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file source's gate, asked about every inbox entry before it is read (contract section 11). Only a regular file
 * up to {@code liveodds.source.file.max-size} passes. A symbolic link is never followed and a FIFO, socket or device
 * is never opened: the entry is removed from the inbox and dead-lettered by name, without content. A larger file, and
 * one the service may not read, is moved whole into the dead-letter store with a record of its name, size and reason,
 * never read into memory: left, it would fail at every poll while the later messages of its match went first. Folders are
 * left alone (the source does not descend into them). With several partners each partner's reading of the inbox asks
 * the guard: an entry is refused (dead-lettered and counted) once, by whichever asks first.
 * <p>
 * The single partner's reading passes over a file in hand ({@link InboxInProgress}) by its name, before Camel or the
 * guard looks at it on disk: a listing that looked at such a file could see it there, and then, its push just ended,
 * moved to {@code .done/} and no longer in hand, take it again and fail to read it.
 */
public class InboxGuard implements OptimizedFileFilter {

    /** The extended attribute of a taken file that holds its file key (device and inode) as the guard saw it. */
    static final String FILE_KEY = "liveodds.fileKey";

    private static final Logger LOG = LoggerFactory.getLogger(InboxGuard.class);
    private static final int MOST_NAMED = 10_000;

    private final DeadLetterStore deadLetters;
    private final Rejections rejections;
    private final UpstreamLiveness liveness;
    private final InboxInProgress inHand;
    private long maxSize = 1024L * 1024L;
    /** What was warned about already (see firstWarning). */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** @param inHand the single partner's files in hand (route liveodds-source-file's in-progress repository) */
    public InboxGuard(DeadLetterStore deadLetters, Rejections rejections, UpstreamLiveness liveness, InboxInProgress inHand) {
        this.deadLetters = deadLetters;
        this.rejections = rejections;
        this.liveness = liveness;
        this.inHand = inHand;
    }

    /** In bytes ({@code liveodds.source.file.max-size}, {@code 1MB} by default, read by the settings). */
    public void setMaxSize(long maxSizeBytes) {
        this.maxSize = maxSizeBytes;
    }

    /** By name alone: a file in hand is passed over; any other entry is looked at ({@link #accept(GenericFile)}). */
    @Override
    public Boolean accept(String name) {
        return inHand.holds(name) ? Boolean.FALSE : null;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // OptimizedFileFilter extends the raw GenericFileFilter
    public boolean accept(GenericFile listed) {
        GenericFile<File> file = listed;
        String name = file.getFileNameOnly();
        if (name.startsWith(".") || !name.endsWith(".json")) {
            // not a message, which the source's include pattern leaves alone; a folder is never a file to read
            return !file.isDirectory();
        }
        Path entry;
        try {
            // the path as listed: Camel's own paths read a backslash in a name as a folder separator
            entry = file.getFile().toPath();
        } catch (InvalidPathException e) {
            // thrown out of the listing, it would end every poll before any later file: the inbox would stop
            unaddressable(name);
            return false;
        }
        BasicFileAttributes attributes;
        try {
            // without following a link: a link to a folder is a link, refused like any other
            // as the listing saw it (InboxFileComponent), or else looked at now
            attributes = file.getFile() instanceof ListedFile seen ? seen.attributes()
                    : Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException gone) {
            if (name.indexOf('\uFFFD') >= 0) {
                // listed under a name decoded with replacement characters (not valid in the file-name encoding)
                unaddressable(name);
            }
            return false;
        } catch (IOException e) {
            if (firstWarning("examined " + name)) {
                LOG.warn("Inbox entry {} cannot be examined, left where it is: {}", LogSafe.escape(name), LogSafe.escape(e.getMessage()));
            }
            return false;
        }
        if (attributes.isDirectory()) {
            return false;
        }
        if (!attributes.isRegularFile() || attributes.size() > maxSize || !Files.isReadable(entry)
                || name.indexOf('\\') >= 0) {
            refuse(entry, name);
            return false;
        }
        if (attributes.fileKey() != null) {
            // which file this name was when it was taken: a producer's rename over it makes another (InboxDone,
            // SharedInbox)
            file.setExtendedAttributes(Map.of(FILE_KEY, attributes.fileKey()));
        }
        return true;
    }

    /** The file key the guard saw when it let the file through (null on a file system without one). */
    static Object listedAs(GenericFile<?> listed) {
        Map<String, Object> attributes = listed == null ? null : listed.getExtendedAttributes();
        return attributes == null ? null : attributes.get(FILE_KEY);
    }

    /** The file key of what is under the path now, without following a link. */
    static Object fileKeyNow(Path path) throws IOException {
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
    }

    /**
     * A name the JVM's file-name encoding cannot hold (a name not in UTF-8 under a UTF-8 locale, any name outside ASCII
     * without one): the file cannot be opened, moved or removed from Java, so it stays, named once in the log.
     */
    private void unaddressable(String name) {
        if (firstWarning("encoding " + name)) {
            LOG.warn("Inbox entry {} has a name the file-name encoding of this JVM ({}) cannot hold: left in the inbox, never read;"
                    + " run the service with a UTF-8 locale (LANG=C.UTF-8) or rename the file", LogSafe.escape(name),
                    System.getProperty("sun.jnu.encoding"));
        }
    }

    /** Looks again under the lock: another partner's reading may have refused the entry already. */
    private synchronized void refuse(Path entry, String name) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException gone) {
            return;
        }
        if (!attributes.isRegularFile()) {
            refuseNonRegular(entry, name, attributes);
        } else if (attributes.size() > maxSize) {
            keepUnread(entry, name, attributes.size(), Reason.TOO_LARGE, "has " + attributes.size()
                    + " bytes, more than liveodds.source.file.max-size (" + maxSize + " bytes)");
        } else if (!Files.isReadable(entry)) {
            keepUnread(entry, name, attributes.size(), Reason.UNREADABLE, "may not be read by the service (file permissions)");
        } else if (name.indexOf('\\') >= 0) {
            keepUnread(entry, name, attributes.size(), Reason.BAD_FILE_NAME, "has a backslash in its name, which Camel's file"
                    + " component takes for a folder separator");
        }
    }

    private void refuseNonRegular(Path entry, String name, BasicFileAttributes attributes) {
        String kind = attributes.isSymbolicLink() ? "a symbolic link (never followed)" : "not a regular file (FIFO, socket or device; never opened)";
        try {
            deadLetters.inboxEntry(name, attributes.size(), Reason.NOT_REGULAR_FILE, "inbox entry " + name + " is " + kind, null);
            Files.deleteIfExists(entry);
            count(Reason.NOT_REGULAR_FILE);
        } catch (IOException | RuntimeException e) {
            if (firstWarning("removed " + name)) {
                LOG.warn("Inbox entry {} is {} but could not be removed: {}", LogSafe.escape(name), kind, LogSafe.escape(e.getMessage()));
            }
        }
    }

    private void keepUnread(Path entry, String name, long size, Reason reason, String why) {
        try {
            Path kept = deadLetters.keep(entry);
            deadLetters.inboxEntry(name, size, reason, "inbox file " + name + " " + why + "; kept unread as " + kept.getFileName(), kept);
            count(reason);
        } catch (IOException | RuntimeException e) {
            // an unreadable file cannot be copied either: a dead-letter store on another file system fails at every poll
            if (firstWarning("kept " + name)) {
                LOG.warn("Inbox file {} {} but could not be moved to the dead-letter store: {}", LogSafe.escape(name), why,
                        LogSafe.escape(e.getMessage()));
            }
        }
    }

    /**
     * Whether this is the first warning about it: an entry left in the inbox is looked at again at every poll, and a
     * warning at each would flood the log.
     */
    private boolean firstWarning(String about) {
        if (warned.size() >= MOST_NAMED) {
            warned.clear();
        }
        return warned.add(about);
    }

    private void count(Reason reason) {
        rejections.rejected(reason);
        // an entry in the inbox, however bad, is the upstream speaking
        liveness.heard();
    }
}
