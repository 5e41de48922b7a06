package com.liveodds.push.source.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * When a listing of the inbox began and ended, on the file system's own clock. A folder listed while files are
 * renamed into it is no snapshot (readdir(3) may or may not return an entry added meanwhile): it can hold a producer's
 * later file of a match and miss the earlier one, renamed just before it, and the later one would go first. Every entry
 * renamed in before the listing began is in it, and a rename sets the file's status-change time (ctime) from the same
 * clock as a file made in the inbox's {@code .done} (writing there is all the service may do): a file whose ctime is
 * before the listing began is taken, one from its beginning to its end waits for the next listing, and one after its
 * end (a clock stepped back) is taken too, so no file waits for the clock.
 */
final class ListingFence {

    private static final String CTIME = "unix:ctime";

    private final Path done;
    private final FileTime began;
    private FileTime ended;

    private ListingFence(Path done, FileTime began) {
        this.done = done;
        this.began = began;
    }

    /**
     * Before the listing: the file system's now.
     *
     * @throws UnsupportedOperationException on a file system without status-change times
     */
    static ListingFence begin(Path folder) throws IOException {
        Path done = Files.createDirectories(folder.resolve(InboxDone.DONE));
        return new ListingFence(done, now(done));
    }

    /** After the listing. */
    void end() throws IOException {
        ended = now(done);
    }

    /** Whether the entry was in the folder for the whole listing (or its time comes from a clock stepped back). */
    boolean listedWhole(ListedFile entry) {
        FileTime changed = entry.changed();
        return changed.compareTo(began) < 0 || ended != null && changed.compareTo(ended) > 0;
    }

    private static FileTime now(Path done) throws IOException {
        Path mark = Files.createTempFile(done, ".fence-", ".tmp");
        try {
            return ctime(mark);
        } finally {
            Files.delete(mark);
        }
    }

    private static FileTime ctime(Path path) throws IOException {
        return (FileTime) Files.getAttribute(path, CTIME, LinkOption.NOFOLLOW_LINKS);
    }
}
