package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.liveodds.push.ops.LogSafe;
import org.apache.camel.Exchange;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.component.file.GenericFileOperations;
import org.apache.camel.component.file.GenericFileProcessStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single partner's inbox (route liveodds-source-file): a file whose message ended well (delivered, dead-lettered,
 * rejected, alive) moves to {@code .done/} in one rename, replacing a file of that name there; one that failed or was
 * handed back stays for the next poll, and so does one that a producer renamed another file over while its message
 * was in hand (one lstat: its file key against the one {@link InboxGuard} saw when it was taken). What Camel's
 * {@code move=.done} does, without its per-file exchange copy, expression and existence checks: the move was a sixth
 * of the file run's route threads, most of it the calls to the file system (docs/benchmarks.md).
 */
public class InboxDone implements GenericFileProcessStrategy<File> {

    private static final Logger LOG = LoggerFactory.getLogger(InboxDone.class);

    /** The folder of the inbox that done files move to. */
    static final String DONE = ".done";

    @Override
    public void prepareOnStartup(GenericFileOperations<File> operations, GenericFileEndpoint<File> endpoint)
            throws IOException {
        Files.createDirectories(Path.of(endpoint.getConfiguration().getDirectory(), DONE));
    }

    @Override
    public boolean begin(GenericFileOperations<File> operations, GenericFileEndpoint<File> endpoint, Exchange exchange,
                         GenericFile<File> file) {
        return true;
    }

    @Override
    public void abort(GenericFileOperations<File> operations, GenericFileEndpoint<File> endpoint, Exchange exchange,
                      GenericFile<File> file) {
        // not begun: the file stays
    }

    @Override
    public void commit(GenericFileOperations<File> operations, GenericFileEndpoint<File> endpoint, Exchange exchange,
                       GenericFile<File> file) {
        Path path = file.getFile().toPath();
        try {
            if (replacedSinceListed(path, file)) {
                // a producer wrote a new message under its name meanwhile: moved unread, it would be lost
                LOG.warn("Inbox file {} was replaced while its message was in hand: left in the inbox to be read again",
                        LogSafe.escape(file.getFileNameOnly()));
                return;
            }
            moveToDone(path);
        } catch (NoSuchFileException e) {
            // removed by hand meanwhile: nothing to move
        } catch (IOException e) {
            // it stays in the inbox and is read again at the next poll: pushed again, with its Idempotency-Key
            LOG.warn("Inbox file {} could not be moved to .done: {}", LogSafe.escape(file.getFileNameOnly()),
                    LogSafe.escape(String.valueOf(e.getMessage())));
        }
    }

    /**
     * Whether the file under the listed name is no longer the one taken: another file key (device and inode) than the
     * guard saw. A rename over it always makes another; a file touched or rewritten in place keeps its own. Without a
     * file key from the guard (a file system that has none), it counts as the same.
     */
    static boolean replacedSinceListed(Path path, GenericFile<File> listed) throws IOException {
        Object taken = InboxGuard.listedAs(listed);
        return taken != null && !taken.equals(InboxGuard.fileKeyNow(path));
    }

    /**
     * Moves an inbox file into the inbox's {@value #DONE} in one rename(2), which replaces a file of that name there
     * (Files.move looks at both paths first: two lstat calls, a third of the move's cost), and makes the folder again
     * if it was removed while the service ran, as Camel's move=.done would.
     *
     * @throws NoSuchFileException when the file itself is gone
     */
    static void moveToDone(Path file) throws IOException {
        Path done = file.resolveSibling(DONE);
        Path target = done.resolve(file.getFileName());
        if (file.toFile().renameTo(target.toFile())) {
            return;
        }
        // it says why only now
        Files.createDirectories(done);
        Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void rollback(GenericFileOperations<File> operations, GenericFileEndpoint<File> endpoint, Exchange exchange,
                         GenericFile<File> file) {
        // failed or handed back: the file stays for the next poll
    }
}
