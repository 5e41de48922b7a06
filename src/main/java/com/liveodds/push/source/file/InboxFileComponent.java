package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import com.liveodds.push.ops.LogSafe;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.component.file.FileComponent;
import org.apache.camel.component.file.FileComponentConfigurer;
import org.apache.camel.component.file.FileConsumer;
import org.apache.camel.component.file.FileEndpoint;
import org.apache.camel.component.file.FileEndpointConfigurer;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.component.file.GenericFileOperations;
import org.apache.camel.component.file.GenericFileProcessStrategy;
import org.apache.camel.spi.PropertyConfigurer;
import org.apache.camel.support.SynchronizationAdapter;
import org.apache.camel.util.function.Suppliers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Camel's file component whose listing, with eager {@code preSort} and {@code maxMessagesPerPoll}, keeps a batch's first
 * names in a heap rather than sorting the whole folder, then asks Camel's own checks of those alone, in name order: a
 * backlog of tens of thousands of files cost Camel's listing tens of milliseconds a poll. With the endpoint option
 * {@code namesPerListing} above {@code maxMessagesPerPoll} a listing keeps that many names for the polls after it, each
 * poll reading {@code maxMessagesPerPoll} of them. A listing takes only files renamed in before it began
 * ({@link ListingFence}). Links and folders go to the endpoint's filter unfollowed. Any other option set lists as Camel
 * does. Both inbox routes read through it ({@code liveoddsFile}); docs/architecture.md, "The file source", has the
 * whole of it.
 */
public class InboxFileComponent extends FileComponent {

    // Camel finds a component's configurers by its name: these read the file component's options as "file:" does
    // (durations such as delay=50ms among them)
    private final PropertyConfigurer componentOptions = new FileComponentConfigurer();
    private final PropertyConfigurer endpointOptions = new FileEndpointConfigurer();

    @Override
    public PropertyConfigurer getComponentPropertyConfigurer() {
        return componentOptions;
    }

    @Override
    public PropertyConfigurer getEndpointPropertyConfigurer() {
        return endpointOptions;
    }

    @Override
    protected GenericFileEndpoint<File> buildFileEndpoint(String uri, String remaining, Map<String, Object> parameters)
            throws Exception {
        // Camel's own checks and folder, on an endpoint of this component's
        Object namesPerListing = parameters.remove("namesPerListing");
        FileEndpoint camels = (FileEndpoint) super.buildFileEndpoint(uri, remaining, parameters);
        InboxEndpoint endpoint = new InboxEndpoint(uri, this);
        if (namesPerListing != null) {
            endpoint.namesPerListing = getCamelContext().getTypeConverter().mandatoryConvertTo(int.class, namesPerListing);
        }
        endpoint.setFile(camels.getFile());
        endpoint.setConfiguration(camels.getConfiguration());
        return endpoint;
    }

    /** A file endpoint whose consumer is {@link InboxConsumer}. */
    static final class InboxEndpoint extends FileEndpoint {

        /** Names a listing keeps, in order, for this poll and the next ones (its option {@code namesPerListing}). */
        private int namesPerListing;

        InboxEndpoint(String uri, FileComponent component) {
            super(uri, component);
        }

        @Override
        protected FileConsumer newFileConsumer(Processor processor, GenericFileOperations<File> operations) {
            GenericFileProcessStrategy<File> strategy = getProcessStrategy() != null ? getProcessStrategy() : createGenericFileStrategy();
            return new InboxConsumer(this, processor, operations, strategy);
        }
    }

    /** Camel's file consumer with the listing above. */
    static final class InboxConsumer extends FileConsumer {

        private static final Logger LOG = LoggerFactory.getLogger(InboxConsumer.class);
        private static final File[] NO_FILES = new File[0];
        /** How long the names a listing kept stay good: a later file that sorts first waits this long at most. */
        private static final long KEPT_FOR_NANOS = Duration.ofSeconds(1).toNanos();

        /** The names of the last listing not yet taken, in order, when it kept more than one poll takes. */
        private Kept kept;
        private boolean fenceWarned;
        /** A file was handed back to the inbox since the last listing: the names after it wait for the next listing. */
        private final AtomicBoolean handedBack = new AtomicBoolean();

        InboxConsumer(FileEndpoint endpoint, Processor processor, GenericFileOperations<File> operations,
                 GenericFileProcessStrategy<File> strategy) {
            super(endpoint, processor, operations, strategy);
        }

        @Override
        protected boolean processExchange(Exchange exchange) {
            // runs after Camel's own completion has rolled the file back (completions run last added first): a listing
            // from then on has the file, and no kept name after it is read before it again
            exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                @Override
                public void onFailure(Exchange failed) {
                    handedBack.set(true);
                }
            });
            return super.processExchange(exchange);
        }

        @Override
        protected boolean pollDirectory(Exchange dynamic, String fileName, List<GenericFile<File>> fileList, int depth) {
            InboxEndpoint endpoint = (InboxEndpoint) getEndpoint();
            // a poll reads no more than a listing keeps
            int batch = endpoint.namesPerListing > 0 ? Math.min(getMaxMessagesPerPoll(), endpoint.namesPerListing)
                    : getMaxMessagesPerPoll();
            File directory = new File(fileName);
            if (!listsFirstNames(endpoint, batch)) {
                return super.pollDirectory(dynamic, fileName, fileList, depth);
            }
            boolean relist = handedBack.getAndSet(false);
            if (kept != null && !relist && System.nanoTime() - kept.at < KEPT_FOR_NANOS) {
                if (takeAll(dynamic, directory, kept, fileList, batch)) {
                    return false;
                }
            }
            kept = null;
            ListingFence fence = fence(directory);
            String[] names = directory.list();
            if (names == null) {
                return super.pollDirectory(dynamic, fileName, fileList, depth);
            }
            fence = ended(fence, directory);
            // a listing reads every name of the inbox: it keeps up to namesPerListing of them for the polls after this
            int listing = Math.max(batch, endpoint.namesPerListing);
            Predicate<String> candidate = candidates(endpoint);
            String after = null;
            while (true) {
                int before = fileList.size();
                Kept first = new Kept(firstNames(names, after, listing, candidate), fence);
                if (takeAll(dynamic, directory, first, fileList, batch)) {
                    kept = rest(first, listing, batch);
                    return false;
                }
                if (first.names.length < listing) {
                    return true;
                }
                after = first.names[first.names.length - 1];
                if (fileList.size() - before < Math.max(1, batch / 2)) {
                    // most of a whole batch passed over by the checks (folders named like files, with several partners
                    // the files the partners with room are done with): the rest sorted once and asked in order, so
                    // that a long run of them costs no pass over the names per batch
                    String from = after;
                    Kept rest = new Kept(Arrays.stream(names).filter(name -> name.compareTo(from) > 0 && candidate.test(name))
                            .sorted().toArray(String[]::new), fence);
                    boolean full = takeAll(dynamic, directory, rest, fileList, batch);
                    kept = rest(rest, listing, batch);
                    return !full;
                }
            }
        }

        /** What a listing keeps for the next polls: its names not yet taken, when it keeps more than a poll reads. */
        private static Kept rest(Kept listed, int listing, int batch) {
            return listing > batch && !listed.spent() ? listed.first(listing) : null;
        }

        /** The fence of a listing about to begin; none (every entry listed is taken) where it cannot be raised. */
        private ListingFence fence(File directory) {
            try {
                return ListingFence.begin(directory.toPath());
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                return withoutFence(directory, e);
            }
        }

        /** The fence with the listing's end; none where that cannot be read. */
        private ListingFence ended(ListingFence fence, File directory) {
            if (fence == null) {
                return null;
            }
            try {
                fence.end();
                return fence;
            } catch (IOException e) {
                return withoutFence(directory, e);
            }
        }

        private ListingFence withoutFence(File directory, Exception e) {
            if (!fenceWarned) {
                fenceWarned = true;
                LOG.warn("The inbox {} is listed without a fence ({}): a file renamed in while it is listed may go before"
                        + " an earlier one", LogSafe.escape(directory.getPath()), LogSafe.escape(String.valueOf(e.getMessage())));
            }
            return null;
        }

        /** Names of a listing in order, how many of them were taken, and the fence it began at. */
        private static final class Kept {
            final String[] names;
            final ListingFence fence;
            final long at = System.nanoTime();
            int next;

            Kept(String[] names, ListingFence fence) {
                this.names = names;
                this.fence = fence;
            }

            boolean spent() {
                return next == names.length;
            }

            /** The first {@code count} names not yet taken: a listing keeps no more. */
            Kept first(int count) {
                return new Kept(Arrays.copyOfRange(names, next, Math.min(names.length, next + count)), fence);
            }
        }

        /** Takes the names in order until the batch is full; whether it is. */
        private boolean takeAll(Exchange dynamic, File directory, Kept names, List<GenericFile<File>> fileList, int batch) {
            while (fileList.size() < batch && !names.spent()) {
                take(dynamic, directory, names.names[names.next++], names.fence, fileList);
            }
            return fileList.size() == batch;
        }

        /** The options this listing serves; with any other, Camel's own listing runs. */
        private boolean listsFirstNames(FileEndpoint endpoint, int batch) {
            return endpoint.isPreSort() && batch > 0 && isEagerLimitMaxMessagesPerPoll() && !endpoint.isRecursive()
                    && endpoint.getMinDepth() <= 1 && endpoint.getDoneFileName() == null && endpoint.getExtendedAttributes() == null
                    && getResumeStrategy() == null;
        }

        /**
         * What a name must be to be worth Camel's checks: not hidden (unless the endpoint reads hidden files), not in
         * hand, matching the endpoint's patterns (which Camel asks again). Files in hand are passed over here by name
         * too, as the guard does, so that they take no place in the batch; the endpoint's by-name filter is not asked
         * here, as SharedInbox's marks a partner refused when it passes a name over.
         */
        private static Predicate<String> candidates(FileEndpoint endpoint) {
            Predicate<String> candidate = endpoint.isIncludeHiddenFiles() ? name -> true : name -> !name.startsWith(".");
            if (endpoint.getInProgressRepository() instanceof InboxInProgress inHand) {
                candidate = candidate.and(name -> !inHand.holds(name));
            }
            Pattern include = endpoint.getIncludePattern();
            if (include != null) {
                candidate = candidate.and(name -> include.matcher(name).matches());
            }
            Pattern exclude = endpoint.getExcludePattern();
            if (exclude != null) {
                candidate = candidate.and(name -> !exclude.matcher(name).matches());
            }
            return candidate;
        }

        /** The {@code count} smallest candidate names after {@code after} (all when null), in order. */
        static String[] firstNames(String[] names, String after, int count, Predicate<String> candidate) {
            PriorityQueue<String> largestFirst = new PriorityQueue<>(count + 1, Comparator.reverseOrder());
            for (String name : names) {
                boolean inRange = after == null || name.compareTo(after) > 0;
                boolean smaller = largestFirst.size() < count || name.compareTo(largestFirst.peek()) < 0;
                if (inRange && smaller && candidate.test(name)) {
                    largestFirst.add(name);
                    if (largestFirst.size() > count) {
                        largestFirst.poll();
                    }
                }
            }
            String[] first = largestFirst.toArray(new String[0]);
            Arrays.sort(first);
            return first;
        }

        /** Camel's checks and the in-progress repository for one entry, as Camel's listing asks them of a file. */
        private void take(Exchange dynamic, File directory, String name, ListingFence fence, List<GenericFile<File>> fileList) {
            File file = listed(directory, name);
            if (fence != null && file instanceof ListedFile entry && !fence.listedWhole(entry)) {
                // renamed in as the listing began or later: an earlier file of its match may be missing from the listing
                return;
            }
            FileEndpoint endpoint = getEndpoint();
            if (endpoint.getFilter() == null && file.isDirectory()) {
                return;
            }
            Supplier<GenericFile<File>> listedFile = Suppliers.memorize(() -> asGenericFile(endpoint.getConfiguration().getDirectory(),
                    file, endpoint.getCharset(), endpoint.isProbeContentType()));
            if (isValidFile(dynamic, listedFile, name, file.getAbsolutePath(), () -> name, false, NO_FILES)) {
                fileList.add(listedFile.get());
            }
        }

        /**
         * The entry looked at once for the fence, the guard and Camel's headers; one that cannot be (gone, a name the
         * JVM cannot hold) is left to Camel's checks and the guard, which say why.
         */
        private static File listed(File directory, String name) {
            try {
                return ListedFile.at(directory, name);
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                // a name the JVM cannot hold (InvalidPathException), a file system without the unix view (no fence either)
                return new File(directory, name);
            }
        }
    }
}
