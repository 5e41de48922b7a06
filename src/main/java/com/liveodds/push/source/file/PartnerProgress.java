package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.support.processor.idempotent.FileIdempotentRepository;

/**
 * One partner's progress through the shared inbox: the names of the inbox files it is done with, in Camel's file
 * idempotent repository ({@code <inbox>/.progress/<partner>}, one name a line, appended as each file is done, so it
 * survives {@code kill -9}). The whole store is held in memory (it is bounded by the inbox: a name leaves once its file
 * moved to .done/), so a name not in memory is not in the file either: the file is never scanned per look-up, and a
 * removal is not a rewrite of the file each time, but one rewrite (to a temporary file, then renamed over it, so a
 * crash leaves the old or the new one) once it holds as many removed names as kept ones.
 */
final class PartnerProgress extends FileIdempotentRepository {

    private static final int LEAST_REWRITE = 100;
    /** Names removed from memory still in the file; the repository's lock guards it (remove() holds it). */
    private int removedInFile;

    PartnerProgress(Path store) {
        super(store.toFile(), new ConcurrentHashMap<>());
        setMaxFileStoreSize(0); // Camel's default drops the oldest entries at 32 MB: this store must lose none
    }

    /**
     * Loads the store and forgets the names whose file is no longer in the inbox (moved to .done/ just before a crash,
     * or removed by hand), so that a file of the same name that comes later is new; the file is rewritten clean.
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

    @Override
    protected void removeFromStore(String key) {
        if (++removedInFile >= Math.max(LEAST_REWRITE, getCache().size())) {
            rewrite();
        }
    }

    private void rewrite() {
        File store = getFileStore();
        Path temporary = store.toPath().resolveSibling(store.getName() + ".new");
        try {
            Files.write(temporary, getCache().keySet());
            Files.move(temporary, store.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rewrite " + store, e);
        }
        removedInFile = 0;
    }

    /**
     * A file name as a line of the store: names may hold any character, line breaks included, and the store is read
     * and written in the platform's charset; other names are kept as they are.
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
