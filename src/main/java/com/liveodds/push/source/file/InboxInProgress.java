package com.liveodds.push.source.file;

import java.io.File;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;

/**
 * The single partner's inbox files in hand (read, their pushes not ended), which Camel's file consumer skips when it
 * lists the inbox again: the route's {@code inProgressRepository}. Camel's default, a 50,000-entry LRU cache, keeps a
 * record of every change until 100,000 have piled up, so the names of files long done stay in the heap, and the
 * collector goes over tens of megabytes of them again and again (docs/benchmarks.md). Here a file is in the set exactly
 * while it is in hand. The set never evicts a file in hand (which the next listing would read again, a repeat): when
 * full, it takes no more, and a file it does not take waits in the inbox for a later listing. It holds the files by
 * name (Camel gives their absolute paths): the inbox is one folder, never descended, so that {@link InboxGuard} can pass
 * over a file in hand by its name alone, before anything looks at it on disk.
 */
public class InboxInProgress extends ServiceSupport implements IdempotentRepository {

    private final Set<String> files = ConcurrentHashMap.newKeySet();
    private final int most;

    /** @param most files in hand at most (above what the queue and a listing's batch can hold) */
    public InboxInProgress(int most) {
        this.most = most;
    }

    /** Files in hand now. */
    public int size() {
        return files.size();
    }

    /** Whether the inbox file of this name is in hand. */
    public boolean holds(String name) {
        return files.contains(name);
    }

    @Override
    public boolean add(String file) {
        return files.size() < most && files.add(name(file));
    }

    @Override
    public boolean contains(String file) {
        return files.contains(name(file));
    }

    @Override
    public boolean remove(String file) {
        return files.remove(name(file));
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf(File.separatorChar) + 1);
    }

    @Override
    public boolean confirm(String file) {
        return true;
    }

    @Override
    public void clear() {
        files.clear();
    }
}
