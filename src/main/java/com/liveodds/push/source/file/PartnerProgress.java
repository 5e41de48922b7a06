package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.support.processor.idempotent.FileIdempotentRepository;

/**
 * One partner's progress through the shared inbox: the names of the inbox files it is done with, in Camel's file
 * idempotent repository ({@code <inbox>/.progress/<partner>}, one name a line, appended as each file is done, so it
 * survives {@code kill -9}). The whole store is held in memory (it is bounded by the inbox: a name leaves once its file
 * moved to .done/), so a name not in memory is not in the file either and the file is never scanned per look-up. A
 * removal is a line appended too ({@code <name> moved}), not a rewrite of the whole file each time: the file is
 * rewritten (to a temporary file, then renamed over it, so a crash leaves the old or the new one) at each start and
 * once it holds as many lines of removed names as kept ones. Lines are appended through one channel kept open (Camel's
 * own append opens and closes the file, with two checks of the path, for every line: a push to each partner).
 */
final class PartnerProgress extends FileIdempotentRepository {

    private static final String MOVED = " moved"; // a key holds no space (see key)
    private static final int LEAST_REWRITE = 100;
    /** Lines of the file that no longer count; the repository's lock guards it (remove() holds it). */
    private int deadLines;
    /** Where lines are appended, open from the first append to the next rewrite or stop; guarded like deadLines. */
    private FileChannel appends;

    PartnerProgress(Path store) {
        super(store.toFile(), new ConcurrentHashMap<>());
        setMaxFileStoreSize(0); // Camel's default drops the oldest entries at 32 MB: this store must lose none
    }

    /**
     * Loads the store and forgets the names whose file is no longer in the inbox (moved to .done/ by a crash before its
     * line "moved" was written, or removed by hand); the file is rewritten clean.
     */
    void load(Set<String> inInbox) {
        start();
        getCache().keySet().retainAll(inInbox);
        rewrite();
    }

    /** Whether the partner is done with the file of this key ({@link #key}); lock-free, for the inbox's listing. */
    boolean isDone(String key) {
        return getCache().containsKey(key);
    }

    /** Everything the store holds is in memory (see the class). */
    @Override
    protected boolean containsStore(String key) {
        return false;
    }

    /** Replayed in order: a name that moved and came again counts once more. */
    @Override
    protected void loadStore() throws IOException {
        Path store = getFileStore().toPath();
        Files.createDirectories(store.getParent());
        getCache().clear();
        if (Files.exists(store)) {
            for (String line : Files.readAllLines(store, StandardCharsets.ISO_8859_1)) {
                if (line.endsWith(MOVED)) {
                    getCache().remove(line.substring(0, line.length() - MOVED.length()));
                } else if (!line.isEmpty()) {
                    getCache().put(line, line);
                }
            }
        }
    }

    /** One write of the whole line: the page cache has it at once, so it survives {@code kill -9} (not a power cut). */
    @Override
    protected void appendToStore(String key) {
        try {
            if (appends == null) {
                Path store = getFileStore().toPath();
                Files.createDirectories(store.getParent());
                appends = FileChannel.open(store, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            }
            ByteBuffer line = ByteBuffer.wrap((key + "\n").getBytes(StandardCharsets.ISO_8859_1));
            while (line.hasRemaining()) {
                appends.write(line);
            }
        } catch (IOException e) {
            closeAppends();
            throw new UncheckedIOException("cannot write to " + getFileStore(), e);
        }
    }

    @Override
    protected void doStop() throws Exception {
        closeAppends();
        super.doStop();
    }

    private void closeAppends() {
        FileChannel open = appends;
        appends = null;
        if (open != null) {
            try {
                open.close();
            } catch (IOException e) {
                // every line was written whole before; nothing is lost by a close that fails
            }
        }
    }

    @Override
    protected void removeFromStore(String key) {
        appendToStore(key + MOVED);
        deadLines += 2;
        if (deadLines >= Math.max(LEAST_REWRITE, getCache().size())) {
            rewrite();
        }
    }

    private void rewrite() {
        closeAppends();
        File store = getFileStore();
        Path temporary = store.toPath().resolveSibling(store.getName() + ".new");
        try {
            Files.write(temporary, getCache().keySet());
            Files.move(temporary, store.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rewrite " + store, e);
        }
        deadLines = 0;
    }

    /**
     * A file name as a line of the store: names may hold any character, line breaks included, and Camel writes the
     * store in the platform's charset, so a name with a space, a line break, a character outside ASCII, {@code %} or
     * {@code +} is URL-encoded (and then holds {@code %} or {@code +}, which no name kept as it is holds).
     */
    static String key(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c > '~' || c == '%' || c == '+') {
                return URLEncoder.encode(name, StandardCharsets.UTF_8);
            }
        }
        return name;
    }
}
