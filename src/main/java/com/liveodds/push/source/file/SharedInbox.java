package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * poll strategy, its filter, and decides in file-name order which partners take each file ({@link #take}); each taker
 * gets a copy on its own queue ({@code liveoddsSeda:liveodds-inbox-N}, its route of the template liveodds-source-file-partner).
 * A partner takes a file it is neither done with nor has in hand, while it has fewer than {@link #MOST_IN_HAND} files
 * in hand (at most {@code liveodds.delivery.queue-size}); a partner that was full when the poll began, or once it runs
 * full during the poll, takes nothing more in that poll, so each partner gets its files in file-name order. A file
 * stays in the inbox until every partner is done with it (delivered, superseded, dead-lettered, rejected, or not
 * booked by that partner), then moves to {@code .done/}. So a partner that is down holds at most its files in hand,
 * its backlog waits in the inbox, and costs the listing a look-up by name per file. Memory: per file some partner took,
 * which partners are done with it or have it in hand. After a crash nothing of this is known any more, and every file
 * still in the inbox is read again by every partner.
 */
public class SharedInbox extends DefaultPollingConsumerPollStrategy implements OptimizedFileFilter {

    /** The files one partner has in hand at most; the size of its queue, {@code liveoddsSeda:liveodds-inbox-N?size=1000}. */
    public static final int MOST_IN_HAND = 1000;
    /** How often (in polls) the files that left the inbox some other way (removed by hand) are forgotten. */
    private static final int FORGET_EVERY = 20;
    private static final Duration RELIST_EVERY = Duration.ofSeconds(1);
    private static final Duration COARSE_TIME = Duration.ofSeconds(2);
    private static final Logger LOG = LoggerFactory.getLogger(SharedInbox.class);

    private final InboxGuard guard;
    /** File name → its partners' progress, for the files some partner took and that have not moved to .done/. */
    private final Map<String, Claims> files = new ConcurrentHashMap<>();
    /** Set when a partner's progress may let it take a file the last listing left. */
    private final AtomicBoolean changed = new AtomicBoolean();
    private Path dir;
    private List<String> partners = List.of();
    private int mostInHand = MOST_IN_HAND;
    private List<Share> shares = List.of();
    /** Counts the listings; the lister's thread alone writes it and the fields below. */
    private volatile long poll;
    private FileTime listedModified;
    private long listedAt;

    public SharedInbox(InboxGuard guard) {
        this.guard = guard;
    }

    /** {@code liveodds.source.file.dir}. */
    public void setDir(String dir) {
        this.dir = Path.of(dir);
    }

    /** {@code liveodds.partners}: the names, comma-separated (empty for the single partner: nothing is shared). */
    public void setPartners(String names) {
        partners = Arrays.stream(names.split(",")).map(String::trim).filter(n -> !n.isEmpty()).toList();
        shares = shares();
    }

    /** {@code liveodds.delivery.queue-size}: a partner has no more files in hand than its delivery queues take. */
    public void setQueueSize(int queueSize) {
        mostInHand = Math.max(1, Math.min(queueSize, MOST_IN_HAND));
        shares = shares();
    }

    private List<Share> shares() {
        List<Share> list = new ArrayList<>();
        for (int i = 0; i < partners.size(); i++) {
            list.add(new Share(i, partners.get(i), new Semaphore(mostInHand)));
        }
        return List.copyOf(list);
    }

    /**
     * Before each poll: whether to list at all, which partners have room, and the files not listed since the poll
     * before are forgotten. The inbox is listed when it may hold something to take: its folder changed (a file came
     * or left), a partner that ran out of room finished a file, a partner handed a file back, the last listing took
     * as many files as a poll takes (there may be more), and at least every {@link #RELIST_EVERY}. So a backlog
     * waiting for a partner that is down costs a listing per change of the inbox, not one per poll.
     */
    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        if (!worthListing()) {
            return false;
        }
        long now = ++poll;
        if (now % FORGET_EVERY == 0) {
            files.entrySet().removeIf(e -> e.getValue().forgettable(now - 1));
        }
        for (Share share : shares) {
            share.open = share.room.availablePermits() > 0;
            share.refused = false;
            starve(share, !share.open);
        }
        return true;
    }

    /** After a listing that took as many files as the consumer takes per poll: there may be more. */
    @Override
    public void commit(Consumer consumer, Endpoint endpoint, int polledMessages) {
        if (consumer instanceof ScheduledBatchPollingConsumer batch && batch.getMaxMessagesPerPoll() > 0
                && polledMessages >= batch.getMaxMessagesPerPoll()) {
            changed.set(true);
        }
    }

    /** Whether the partner's room ran out in this listing: then the file it finishes next calls for another. */
    private void starve(Share share, boolean starved) {
        share.starved = starved;
        if (starved && share.room.availablePermits() > 0) {
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

    /** By name alone, before the file component makes anything of the entry: skipped when no open partner needs it. */
    @Override
    public Boolean accept(String name) {
        Claims claims = files.get(name);
        if (claims == null) {
            return shares.stream().anyMatch(share -> share.open) ? null : Boolean.FALSE;
        }
        claims.seen = poll;
        return claims.wantedBy(shares) ? null : Boolean.FALSE;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"}) // OptimizedFileFilter extends the raw GenericFileFilter
    public boolean accept(GenericFile file) {
        return guard.accept((GenericFile<File>) file);
    }

    /**
     * In file-name order, for each listed file: the queues of the partners that take it now ({@code liveoddsSeda:...}, for
     * the route's recipient list), its body read once for all of them. None when nobody takes it.
     */
    public List<String> take(Exchange exchange) {
        String name = exchange.getMessage().getHeader(Exchange.FILE_NAME_ONLY, String.class);
        Claims claims = files.get(name);
        if (claims == null) {
            // listed before its last partner moved it to .done/ (or removed by hand): nothing to take
            if (!Files.exists(dir.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
                return List.of();
            }
            claims = files.computeIfAbsent(name, n -> new Claims(shares.size(), poll));
        }
        List<Share> takers = new ArrayList<>();
        synchronized (claims) {
            for (Share share : shares) {
                if (!share.open || share.refused || claims.busy(share.index)) {
                    continue;
                }
                if (share.room.tryAcquire()) {
                    claims.inHand.set(share.index);
                    takers.add(share);
                } else {
                    share.refused = true; // its later files wait for the next poll: its order holds
                    starve(share, true);
                }
            }
        }
        if (takers.isEmpty()) {
            return List.of();
        }
        try {
            exchange.getMessage().setBody(exchange.getMessage().getBody(byte[].class));
        } catch (RuntimeException e) {
            takers.forEach(share -> handedBack(share, name));
            throw e;
        }
        return takers.stream().map(Share::queue).toList();
    }

    /** On a partner's copy of a file: when its exchange ends, the file is done for the partner or back in the inbox. */
    public void inHand(Exchange exchange, String partner) {
        String name = exchange.getMessage().getHeader(Exchange.FILE_NAME_ONLY, String.class);
        Share share = shares.stream().filter(s -> s.partner.equals(partner)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("not a partner of liveodds.partners: " + partner));
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onComplete(Exchange done) {
                finished(share, name);
            }

            @Override
            public void onFailure(Exchange failed) {
                handedBack(share, name);
            }
        });
    }

    /** The partner's copy ended well; the last partner to finish moves the file to .done/. */
    private void finished(Share share, String name) {
        Claims claims = files.computeIfAbsent(name, n -> new Claims(shares.size(), poll));
        boolean last;
        synchronized (claims) {
            claims.inHand.clear(share.index);
            claims.done.set(share.index);
            last = claims.done.cardinality() == shares.size();
        }
        share.room.release();
        if (share.starved) {
            changed.set(true);
        }
        if (!last) {
            return;
        }
        Path file = dir.resolve(name);
        try {
            Path target = dir.resolve(".done").resolve(name);
            Files.createDirectories(target.getParent());
            Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
            // forgotten only once moved: until then, its claims keep every partner from taking it again
            files.remove(name, claims);
        } catch (IOException e) {
            // kept as done by all: not read again before a restart
            LOG.warn("Inbox file {} is done for every partner but could not be moved to .done: {}", LogSafe.escape(name),
                    LogSafe.escape(e.getMessage()));
        }
    }

    /** The partner's copy failed or was handed back (shutdown): the file is offered to the partner again. */
    private void handedBack(Share share, String name) {
        Claims claims = files.get(name);
        if (claims != null) {
            synchronized (claims) {
                claims.inHand.clear(share.index);
            }
        }
        share.room.release();
        changed.set(true);
    }

    /** A partner's part: its queue, its room; open and refused are the lister thread's, for the poll under way. */
    private static final class Share {
        private final int index;
        private final String partner;
        private final Semaphore room;
        private boolean open;
        private boolean refused;
        private volatile boolean starved;

        Share(int index, String partner, Semaphore room) {
            this.index = index;
            this.partner = partner;
            this.room = room;
        }

        String queue() {
            return "liveoddsSeda:liveodds-inbox-" + partner + "?size=" + MOST_IN_HAND;
        }
    }

    /** One file's partners: done with it, or having it in hand (guarded by the object's lock). */
    private static final class Claims {
        private final BitSet done;
        private final BitSet inHand;
        private volatile long seen;

        Claims(int partners, long poll) {
            this.done = new BitSet(partners);
            this.inHand = new BitSet(partners);
            this.seen = poll;
        }

        synchronized boolean busy(int partner) {
            return done.get(partner) || inHand.get(partner);
        }

        /** Whether a partner open in this poll is neither done with the file nor has it in hand. */
        synchronized boolean wantedBy(List<Share> shares) {
            for (Share share : shares) {
                if (share.open && !done.get(share.index) && !inHand.get(share.index)) {
                    return true;
                }
            }
            return false;
        }

        /** Gone from the inbox (not listed since the given poll) and in nobody's hands. */
        synchronized boolean forgettable(long sincePoll) {
            return seen < sincePoll && inHand.isEmpty();
        }
    }
}
