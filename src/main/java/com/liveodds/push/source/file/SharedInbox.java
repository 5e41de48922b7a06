package com.liveodds.push.source.file;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.ops.LogSafe;
import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.OptimizedFileFilter;
import org.apache.camel.support.DefaultPollingConsumerPollStrategy;
import org.apache.camel.support.ScheduledBatchPollingConsumer;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inbox when several partners read it (contract 16). One file consumer lists the inbox for all partners
 * (route liveodds-source-file-shared in routes/source-file.yaml, which leaves the file where it is): this bean is its
 * poll strategy, its filter, and decides in file-name order which partners take each file ({@link #share}). The route's
 * exchange reads, validates and resolves the message once for all of them, and delivery queues a copy of the push for
 * each taker that booked its match, with a handover of that partner's own ({@link SourceHandover.Shared}): the file is
 * done for the partner when its copy ends (delivered, superseded, dead-lettered), offered to it again when its copy is
 * handed back (a full queue refuses it at once, a shutdown hands it back); a taker nothing was queued for (not booked,
 * a rejected or alive message) is done with the file as the route's exchange ends. No partner waits for another.
 * <p>
 * A partner takes a file it is neither done with nor has in hand, while it has fewer files in hand than its share of
 * {@code liveodds.delivery.queue-size}. A listing is led by the partners down to half that room: a file is read when
 * one of them needs it, and then taken by every partner with room that needs it too, so partners that keep pace share
 * one reading of each file rather than each reading it when its own room comes back. A partner that was full when the
 * poll began, runs full, needs a file no leading partner needs, or has a copy handed back during the poll takes
 * nothing more in it, so each partner gets its files in file-name order. A file stays in the
 * inbox until every partner is done with it, then moves to {@code .done/}. So a partner that is down holds at most its
 * files in hand; its backlog waits in the inbox, costs the listing a look-up by name per file, and is read and judged
 * again when the partner has room (a rejected message is dead-lettered and counted once all the same: its key marks
 * it). Which files a partner is done with is its own {@link PartnerProgress}, on disk, so a restart (a {@code kill -9}
 * too) pushes it none of them again; a file every partner was done with when the service stopped, before it moved,
 * moves at the next listing. A paused partner takes nothing, as one without room; its files in hand wait in its queue.
 */
public class SharedInbox extends DefaultPollingConsumerPollStrategy implements OptimizedFileFilter {

    private static final Duration RELIST_EVERY = Duration.ofSeconds(1);
    private static final Duration COARSE_TIME = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(SharedInbox.class);

    private final InboxGuard guard;
    /** Set when a partner's progress may let it take a file the last listing left. */
    private final AtomicBoolean changed = new AtomicBoolean();
    /**
     * Which file (its file key: device and inode) the partners' progress on a name refers to, from the last reading of
     * the name: a producer's rename over the name makes another file, which no partner is done with.
     */
    private final Map<String, Object> readAs = new ConcurrentHashMap<>();
    private Path dir;
    private List<String> partners = List.of();
    private int mostInHand = 1;
    private List<Share> shares = List.of();
    private Predicate<String> paused = partner -> false;
    /** The lister's thread alone writes the fields below. */
    private boolean loaded;
    private FileTime listedModified;
    private long listedAt;

    public SharedInbox(InboxGuard guard) {
        this.guard = guard;
    }

    /** {@code liveodds.source.file.dir}. */
    public void setDir(String dir) {
        this.dir = Path.of(dir);
        shares = shares();
    }

    /** {@code liveodds.partners}: the names, comma-separated (empty for the single partner: nothing is shared). */
    public void setPartners(String names) {
        partners = Arrays.stream(names.split(",")).map(String::trim).filter(n -> !n.isEmpty()).toList();
        shares = shares();
    }

    /** The partner's share of {@code liveodds.delivery.queue-size}: it has no more files in hand than its queue takes. */
    public void setQueueSize(int queueSize) {
        mostInHand = Math.max(1, queueSize);
    }

    /** Whether a partner is paused (contract 24): it takes no file, so its files wait in the inbox. */
    public void setPaused(Predicate<String> paused) {
        this.paused = paused;
    }

    private List<Share> shares() {
        if (dir == null) {
            return List.of();
        }
        return partners.stream().map(p -> new Share(p, new PartnerProgress(dir.resolve(".progress").resolve(p)))).toList();
    }

    /**
     * Before each poll: whether to list at all, and which partners have room. The inbox is listed when it may hold
     * something to take: its folder changed (a file came or left), a partner that ran out of room finished a file, a
     * partner handed a file back, the last listing took as many files as a poll takes (there may be more), and at least
     * every {@link #RELIST_EVERY}. So a backlog waiting for a partner that is down costs a listing per change of the
     * inbox, not one per poll. The first poll loads the partners' progress (only the file source with several partners
     * keeps one).
     */
    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        if (!loaded) {
            load();
        }
        if (!worthListing()) {
            return false;
        }
        for (Share share : shares) {
            boolean pausedNow = paused.test(share.partner);
            share.open = share.hasRoom() && !pausedNow;
            share.leads = share.open && share.wantsMore();
            share.refused = false;
            // a paused partner is no starved one: its resume is seen by the listing at least once a second
            starve(share, !pausedNow && !share.leads);
        }
        return true;
    }

    private void load() {
        Set<String> inInbox;
        try (Stream<Path> files = Files.list(dir)) {
            inInbox = files.map(f -> PartnerProgress.key(f.getFileName().toString())).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the inbox " + dir, e);
        }
        shares.forEach(share -> share.progress.load(inInbox));
        loaded = true;
    }

    /** After a listing that took as many files as the consumer takes per poll: there may be more. */
    @Override
    public void commit(Consumer consumer, Endpoint endpoint, int polledMessages) {
        if (consumer instanceof ScheduledBatchPollingConsumer batch && batch.getMaxMessagesPerPoll() > 0
                && polledMessages >= batch.getMaxMessagesPerPoll()) {
            changed.set(true);
        }
    }

    /** Whether the partner wants files it does not get in this listing: then its finishing calls for another. */
    private void starve(Share share, boolean starved) {
        share.starved = starved;
        if (starved && share.wantsMore()) {
            changed.set(true); // room came back meanwhile
        }
    }

    private boolean worthListing() {
        FileTime modified;
        try {
            modified = Files.getLastModifiedTime(dir);
        } catch (IOException e) {
            modified = null; // the file component reports it
        }
        long now = System.nanoTime();
        boolean worth = changed.getAndSet(false) || modified == null || !modified.equals(listedModified)
                || now - listedAt > RELIST_EVERY.toNanos()
                || isCoarseAndRecent(modified);
        if (worth) {
            listedModified = modified;
            listedAt = now;
        }
        return worth;
    }

    /**
     * A folder time in whole milliseconds (a file system that keeps seconds) may not show a file that came in the same
     * tick as the last listing: such a folder is listed every poll while its time is recent. Finer times (ext4, xfs,
     * tmpfs: nanoseconds) show every change, and the listing at least once a second catches the rest.
     */
    private static boolean isCoarseAndRecent(FileTime modified) {
        Instant at = modified.toInstant();
        return at.getNano() % 1_000_000 == 0 && Duration.between(at, Instant.now()).compareTo(COARSE_TIME) < 0;
    }

    /**
     * By name alone, before the file component makes anything of the entry: skipped when no leading partner needs it,
     * unless every partner is done with it (then {@link #share} moves it). An open partner that needs a file skipped so
     * takes no later one in this poll, so that it is not given a later file along with a leading partner before this one.
     */
    @Override
    public Boolean accept(String name) {
        String key = PartnerProgress.key(name);
        boolean allDone = true;
        for (Share share : shares) {
            boolean done = share.progress.isDone(key);
            if (!done && share.leads && !share.inHand.contains(key)) {
                return null;
            }
            allDone &= done;
        }
        if (allDone) {
            return null;
        }
        for (Share share : shares) {
            if (share.open && !share.progress.isDone(key) && !share.inHand.contains(key)) {
                share.refused = true;
            }
        }
        return Boolean.FALSE;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // OptimizedFileFilter extends the raw GenericFileFilter
    public boolean accept(GenericFile file) {
        return guard.accept(file);
    }

    /**
     * In file-name order, for each listed file: the partners that take it now, named to delivery in the exchange
     * ({@link SourceHandover.Shared#VARIABLE}, none when nobody takes it); a file every partner is done with moves to
     * .done/. Delivery runs on the lister's thread up to each partner's queue, so a refusal is known before the next
     * file is taken.
     */
    public void share(Exchange exchange) {
        String name = exchange.getMessage().getHeader(Exchange.FILE_NAME_ONLY, String.class);
        String key = PartnerProgress.key(name);
        GenericFile<?> listed = exchange.getProperty(Exchange.FILE_EXCHANGE_FILE, GenericFile.class);
        Taking taking = new Taking(name, key, InboxGuard.listedAs(listed));
        synchronized (this) {
            // listed before its last partner moved it to .done/ (or removed by hand): nothing to take
            if (!Files.exists(dir.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
                readAs.remove(key);
                return;
            }
            readAgain(name, key, taking.file);
            boolean allDone = true;
            boolean led = false;
            List<Share> wanting = new ArrayList<>(shares.size());
            for (Share share : shares) {
                // in hand first: a partner that finishes a file is done with it before the file leaves its hands
                if (share.inHand.contains(key) || share.progress.isDone(key)) {
                    allDone &= share.progress.isDone(key);
                    continue;
                }
                allDone = false;
                if (share.open && !share.refused) {
                    wanting.add(share);
                    led |= share.leads;
                }
            }
            for (Share share : wanting) {
                if (led && share.hasRoom()) {
                    share.inHand.add(key);
                    taking.takers.put(share.partner, share);
                } else {
                    share.refused = true; // its later files wait for the next poll: its order holds
                    starve(share, true);
                }
            }
            if (allDone) {
                moveToDone(name, key);
            }
        }
        if (!taking.takers.isEmpty()) {
            exchange.setVariable(SourceHandover.Shared.VARIABLE, taking);
            exchange.getExchangeExtension().addOnCompletion(taking);
        }
    }

    /**
     * The name read again: if it is now another file than the one the partners' progress refers to, a producer renamed a
     * new message over it, and no partner is done with that one. A partner that had neither finished the old one nor
     * had it in hand never gets it: the producer's rename removed it from the inbox.
     */
    private void readAgain(String name, String key, Object file) {
        if (file == null) {
            return;
        }
        Object before = readAs.put(key, file);
        if (before != null && !before.equals(file)) {
            for (Share share : shares) {
                if (!share.progress.isDone(key) && !share.inHand.contains(key)) {
                    LOG.warn("Inbox file {} was replaced by its producer before partner {} read it: the message it held is"
                            + " gone from the inbox and never reaches partner {} (give each message a file name of its own)",
                            LogSafe.escape(name), share.partner, share.partner);
                }
                share.progress.remove(key);
            }
        }
    }

    /** Whether the name was last read as another file than {@code file} (a producer renamed a new one over it). */
    private boolean replaced(String key, Object file) {
        return file != null && !file.equals(readAs.getOrDefault(key, file));
    }

    /**
     * The partner's copy ended well: recorded on disk for it, unless a producer renamed another file over the name
     * meanwhile (then the partner takes that one too); the last partner to finish moves the file to .done/.
     */
    private void finished(Share share, String name, String key, Object file) {
        if (replaced(key, file)) {
            share.inHand.remove(key);
            changed.set(true);
            return;
        }
        try {
            share.progress.add(key);
        } catch (RuntimeException e) {
            // done in memory all the same: the partner has it; only a restart would push it to the partner again
            LOG.warn("Inbox file {} is done for partner {} but its progress could not be written: {}", LogSafe.escape(name),
                    share.partner, LogSafe.escape(e.getMessage()));
        }
        if (replaced(key, file)) {
            // read again meanwhile as another file (readAgain records it before it forgets the partners' progress)
            share.progress.remove(key);
            share.inHand.remove(key);
            changed.set(true);
            return;
        }
        share.inHand.remove(key);
        if (share.starved && share.wantsMore()) {
            changed.set(true);
        }
        if (shares.stream().allMatch(s -> s.progress.isDone(key))) {
            synchronized (this) {
                if (shares.stream().allMatch(s -> s.progress.isDone(key))) {
                    moveToDone(name, key);
                }
            }
        }
    }

    /**
     * Moves a file every partner is done with to .done/; only then (or when it is gone) its progress is forgotten. A file
     * renamed over the name since it was read stays, and no partner is done with it.
     */
    private void moveToDone(String name, String key) {
        Path file = dir.resolve(name);
        try {
            Object read = readAs.get(key);
            if (read != null && !read.equals(InboxGuard.fileKeyNow(file))) {
                LOG.warn("Inbox file {} was replaced while its message was in hand: left in the inbox to be read again",
                        LogSafe.escape(name));
                readAs.remove(key);
                shares.forEach(share -> share.progress.remove(key));
                changed.set(true);
                return;
            }
            InboxDone.moveToDone(file);
        } catch (NoSuchFileException e) {
            // removed by hand: nothing to move
        } catch (IOException e) {
            // kept as done by every partner: moved by a later listing
            LOG.warn("Inbox file {} is done for every partner but could not be moved to .done: {}", LogSafe.escape(name),
                    LogSafe.escape(e.getMessage()));
            return;
        }
        readAs.remove(key);
        shares.forEach(share -> share.progress.remove(key));
    }

    /**
     * The partner's copy was refused (its queue is full) or handed back (shutdown): the file is offered to it again at a
     * later listing (one comes when it finishes a file, and at least every second), and it takes nothing more in this
     * poll, so no later file reaches it before this one.
     */
    private void handedBack(Share share, String key) {
        share.inHand.remove(key);
        share.refused = true;
        share.starved = true;
    }

    /**
     * The takers of one file: each one's copy ends on its own (its handover); the others end with the lister's
     * exchange, done with the file if it ended well (not booked, rejected, alive), offered it again if it failed.
     */
    private final class Taking extends SynchronizationAdapter implements SourceHandover.Shared {
        private final String name;
        private final String key;
        /** The file key of what was read (null without one). */
        private final Object file;
        private final Map<String, Share> takers = new LinkedHashMap<>();
        private final Set<String> handedOver = ConcurrentHashMap.newKeySet();

        Taking(String name, String key, Object file) {
            this.name = name;
            this.key = key;
            this.file = file;
        }

        @Override
        public Collection<String> partners() {
            return takers.keySet();
        }

        @Override
        public SourceHandover forPartner(String partner) {
            Share share = takers.get(partner);
            handedOver.add(partner);
            return new SourceHandover() {
                @Override
                public void acknowledge() {
                    finished(share, name, key, file);
                }

                @Override
                public void handBack(String why) {
                    handedBack(share, key);
                }
            };
        }

        @Override
        public void onComplete(Exchange exchange) {
            takers.forEach((partner, share) -> {
                if (!handedOver.contains(partner)) {
                    finished(share, name, key, file);
                }
            });
        }

        @Override
        public void onFailure(Exchange exchange) {
            takers.forEach((partner, share) -> {
                if (!handedOver.contains(partner)) {
                    handedBack(share, key);
                }
            });
        }
    }

    /**
     * A partner's part: its progress, its files in hand; open and leads are the lister thread's, for the poll under
     * way, and so is refused, which a refusal of its queue also sets.
     */
    private final class Share {
        private final String partner;
        private final PartnerProgress progress;
        private final Set<String> inHand = ConcurrentHashMap.newKeySet();
        private boolean open;
        private boolean leads;
        private volatile boolean refused;
        private volatile boolean starved;

        Share(String partner, PartnerProgress progress) {
            this.partner = partner;
            this.progress = progress;
        }

        boolean hasRoom() {
            return inHand.size() < mostInHand;
        }

        /** Down to half its room: it leads a listing, and the partners with room that need the same files join it. */
        boolean wantsMore() {
            return inHand.size() < Math.max(1, mostInHand / 2);
        }
    }
}
