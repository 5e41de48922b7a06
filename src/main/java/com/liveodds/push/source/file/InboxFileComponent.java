package com.liveodds.push.source.file;

import java.io.File;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;

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
import org.apache.camel.util.function.Suppliers;

/**
 * Camel's file component whose listing, with eager {@code preSort} and {@code maxMessagesPerPoll}, keeps a batch's first
 * names in a heap rather than sorting the whole folder, then asks Camel's own checks of those alone, in name order: a
 * backlog of tens of thousands of files cost Camel's listing tens of milliseconds a poll. Links and folders go to the
 * endpoint's filter unfollowed. Any other option set lists as Camel does. Both inbox routes read through it
 * ({@code liveoddsFile}); docs/architecture.md, "The file source", has the whole of it.
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
        FileEndpoint camels = (FileEndpoint) super.buildFileEndpoint(uri, remaining, parameters);
        InboxEndpoint endpoint = new InboxEndpoint(uri, this);
        endpoint.setFile(camels.getFile());
        endpoint.setConfiguration(camels.getConfiguration());
        return endpoint;
    }

    /** A file endpoint whose consumer is {@link InboxConsumer}. */
    static final class InboxEndpoint extends FileEndpoint {

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

        private static final File[] NO_FILES = new File[0];

        InboxConsumer(FileEndpoint endpoint, Processor processor, GenericFileOperations<File> operations,
                 GenericFileProcessStrategy<File> strategy) {
            super(endpoint, processor, operations, strategy);
        }

        @Override
        protected boolean pollDirectory(Exchange dynamic, String fileName, List<GenericFile<File>> fileList, int depth) {
            FileEndpoint endpoint = getEndpoint();
            int batch = getMaxMessagesPerPoll();
            File directory = new File(fileName);
            String[] names = listsFirstNames(endpoint, batch) ? directory.list() : null;
            if (names == null) {
                return super.pollDirectory(dynamic, fileName, fileList, depth);
            }
            Predicate<String> candidate = candidates(endpoint);
            String after = null;
            while (true) {
                int before = fileList.size();
                String[] first = firstNames(names, after, batch, candidate);
                if (takeAll(dynamic, directory, first, fileList, batch)) {
                    return false;
                }
                if (first.length < batch) {
                    return true;
                }
                after = first[first.length - 1];
                if (fileList.size() - before < Math.max(1, batch / 2)) {
                    // most of a whole batch passed over by the checks (folders named like files, with several partners
                    // the files the partners with room are done with): the rest sorted once and asked in order, so
                    // that a long run of them costs no pass over the names per batch
                    String from = after;
                    String[] rest = Arrays.stream(names).filter(name -> name.compareTo(from) > 0 && candidate.test(name))
                            .sorted().toArray(String[]::new);
                    return !takeAll(dynamic, directory, rest, fileList, batch);
                }
            }
        }

        /** Takes the names in order until the batch is full; whether it is. */
        private boolean takeAll(Exchange dynamic, File directory, String[] names, List<GenericFile<File>> fileList, int batch) {
            for (String name : names) {
                if (fileList.size() == batch) {
                    return true;
                }
                take(dynamic, directory, name, fileList);
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
        private void take(Exchange dynamic, File directory, String name, List<GenericFile<File>> fileList) {
            File file = new File(directory, name);
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
    }
}
