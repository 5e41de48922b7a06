package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.liveodds.push.ops.LogSafe;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.OptimizedFileFilter;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbox when several partners read it (contract 16). Each partner reads every file on its own, in file-name order
 * (its route of the template in routes/source-file.yaml, which leaves the file where it is), through its own
 * {@link Reading}: bound as {@value #READING}-N, the filter and idempotent repository of its file consumer. A file
 * stays in the inbox until every partner is done with it (delivered, superseded, dead-lettered, rejected, or not
 * booked by that partner), then moves to {@code .done/}. So a partner that is down holds back only its own reading,
 * and its backlog is the files left in the inbox. Memory: per file still in the inbox, the names of the partners done
 * with it. After a crash nothing of this is known any more, and every file still in the inbox is read again by every
 * partner.
 */
public class SharedInbox implements CamelContextAware {

    /** The registry name of a partner's reading, followed by its suffix ({@code liveoddsInboxReading-a}). */
    public static final String READING = "liveoddsInboxReading";
    private static final Logger LOG = LoggerFactory.getLogger(SharedInbox.class);

    private final InboxGuard guard;
    /** File name → the partners done with it, for the files not yet moved to .done/. */
    private final Map<String, Set<String>> done = new ConcurrentHashMap<>();
    private CamelContext context;
    private Path dir;
    private List<String> partners = List.of();

    public SharedInbox(InboxGuard guard) {
        this.guard = guard;
    }

    /** {@code liveodds.source.file.dir}. */
    public void setDir(String dir) {
        this.dir = Path.of(dir);
    }

    /** {@code liveodds.partners}: the names, comma-separated (empty for the single partner: nothing is shared). */
    public void setPartners(String names) {
        this.partners = Arrays.stream(names.split(",")).map(String::trim).filter(n -> !n.isEmpty()).toList();
    }

    /** Runs when beans.yaml loads: binds each partner's reading. */
    public void install() {
        for (String partner : partners) {
            context.getRegistry().bind(READING + "-" + partner, new Reading(partner));
        }
    }

    private boolean isDone(String partner, String name) {
        Set<String> by = done.get(name);
        if (by == null) {
            return false;
        }
        synchronized (by) {
            return by.contains(partner);
        }
    }

    /** The partner's exchange for the file ended well; the last partner to finish moves the file to .done/. */
    private void finished(String partner, String name) {
        Set<String> by = done.computeIfAbsent(name, n -> new HashSet<>());
        boolean last;
        synchronized (by) {
            last = by.add(partner) && by.size() == partners.size();
        }
        if (!last) {
            return;
        }
        Path file = dir.resolve(name);
        try {
            Path target = dir.resolve(".done").resolve(name);
            Files.createDirectories(target.getParent());
            Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
            // forgotten only once moved: until then, "done" keeps every partner from reading it again
            done.remove(name, by);
        } catch (IOException e) {
            // kept as done by all: not read again before a restart
            LOG.warn("Inbox file {} is done for every partner but could not be moved to .done: {}", LogSafe.escape(name),
                    LogSafe.escape(e.getMessage()));
        }
    }

    private void notFinished(String partner, String name) {
        Set<String> by = done.get(name);
        if (by != null) {
            synchronized (by) {
                by.remove(partner);
            }
        }
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /**
     * One partner's reading of the inbox: the file consumer's filter (a file this partner is done with is skipped
     * before the guard looks at it, so a backlog left for a partner that is down costs the others no more than a
     * look-up per poll) and its idempotent repository, keyed by file name (Camel adds a file when the partner's
     * exchange for it ends well).
     */
    public final class Reading extends ServiceSupport implements OptimizedFileFilter, IdempotentRepository {

        private final String partner;

        Reading(String partner) {
            this.partner = partner;
        }

        /** By name alone, before the file component makes anything of the entry: skipped when done with. */
        @Override
        public Boolean accept(String name) {
            return isDone(partner, name) ? Boolean.FALSE : null;
        }

        @Override
        @SuppressWarnings({"rawtypes", "unchecked"}) // OptimizedFileFilter extends the raw GenericFileFilter
        public boolean accept(GenericFile file) {
            return guard.accept((GenericFile<File>) file);
        }

        /** Done with it, or it left the inbox (moved to .done/ since the folder was listed, or removed by hand). */
        @Override
        public boolean contains(String name) {
            if (isDone(partner, name)) {
                return true;
            }
            if (!Files.exists(dir.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
                done.remove(name); // nothing left to wait for
                return true;
            }
            return false;
        }

        @Override
        public boolean add(String name) {
            finished(partner, name);
            return true;
        }

        @Override
        public boolean remove(String name) {
            notFinished(partner, name);
            return true;
        }

        @Override
        public boolean confirm(String name) {
            return true;
        }

        @Override
        public void clear() {
            // nothing to forget: the inbox itself is the record
        }
    }
}
