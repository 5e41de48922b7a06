package com.liveodds.push.source.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/**
 * When a listing of the inbox began, on the file system's own clock. A folder listed while files are renamed into it
 * is no snapshot (readdir(3) may or may not return an entry added meanwhile): it can hold a producer's later file of a
 * match and miss the earlier one, renamed just before it, and the later one would go first. Every entry renamed in
 * before the listing began is in it, and a rename sets the file's status-change time (ctime) from the same clock as a
 * change of the fence folder's times: a file whose ctime is before the fence was in the folder before the listing, one
 * at or after it waits for the next listing. The fence folder is the inbox's {@code .done}.
 */
final class ListingFence {

    private static final String CTIME = "unix:ctime";

    private final FileTime at;

    private ListingFence(FileTime at) {
        this.at = at;
    }

    /**
     * Sets the fence folder's times (its ctime becomes the file system's now), then reads it back.
     *
     * @throws UnsupportedOperationException on a file system without status-change times
     */
    static ListingFence raise(Path folder) throws IOException {
        Path fence = Files.createDirectories(folder.resolve(InboxDone.DONE));
        Files.setLastModifiedTime(fence, FileTime.from(Instant.now()));
        return new ListingFence(ctime(fence));
    }

    /** Whether the entry was renamed into (or made in) the folder before the fence was raised. */
    boolean isBefore(Path entry) throws IOException {
        return ctime(entry).compareTo(at) < 0;
    }

    private static FileTime ctime(Path path) throws IOException {
        return (FileTime) Files.getAttribute(path, CTIME, LinkOption.NOFOLLOW_LINKS);
    }
}
