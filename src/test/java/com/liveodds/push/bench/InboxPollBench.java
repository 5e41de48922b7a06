package com.liveodds.push.bench;

import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.source.file.InboxFileComponent;
import com.liveodds.push.source.file.InboxGuard;
import com.liveodds.push.source.file.InboxInProgress;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One poll of the file source over a large inbox (default 20,000 files; -Dbench.files=...), with Camel's plain options
 * (sortBy file:name, changed read lock of 200 ms), with a comparator sorting every file listed before the poll's
 * first 500 are taken (the file source until 2026-11-27), and with the options it has now (the listing sorted by name
 * first, then the first 500 taken). Not a test: it prints how long until the first message of the poll is handed on,
 * until its 500 messages are, and the CPU the whole inbox took. Run with
 * {@code mvn -B -o test -Dtest=InboxPollBench -Dtest.excludedGroups=none}.
 */
@Tag("bench")
class InboxPollBench {

    private static final String COMMON = "include=.*\\.json&move=.done&maxMessagesPerPoll=500&delay=200&initialDelay=0";

    @Test
    void onePollOverALargeInbox(@TempDir Path work) throws Exception {
        int files = Integer.getInteger("bench.files", 20_000);
        Map<String, String> variants = new LinkedHashMap<>();
        variants.put("plain (Camel's sortBy file:name, readLock changed 200 ms)",
                COMMON + "&eagerMaxMessagesPerPoll=false&sortBy=file:name&readLock=changed&readLockMinAge=200&readLockCheckInterval=100"
                        + "&readLockMinLength=0");
        variants.put("sorted-after (sorter over every file listed, InboxGuard filter, readLock none)",
                COMMON + "&eagerMaxMessagesPerPoll=false&sorter=#bean:order&filter=#bean:guard&readLock=none");
        variants.put("sorted-names (preSort, then the first 500, InboxGuard filter, readLock none)",
                COMMON + "&preSort=true&eagerMaxMessagesPerPoll=true&filter=#bean:guard&readLock=none");
        // the file source's own component: the same options, its listing keeping the first 500 names in a heap
        variants.put("liveoddsFile (the same options on InboxFileComponent)",
                COMMON + "&preSort=true&eagerMaxMessagesPerPoll=true&filter=#bean:guard&readLock=none");
        for (int round = 1; round <= 2; round++) {
            for (Map.Entry<String, String> variant : variants.entrySet()) {
                Path inbox = Files.createDirectory(work.resolve("inbox-" + round + "-" + variant.getKey().split(" ")[0]));
                for (int i = 0; i < files; i++) {
                    Files.writeString(inbox.resolve(String.format("m-%06d.json", (i * 7919) % files)), "{\"n\":" + i + "}");
                }
                measure(round, variant.getKey(), inbox, variant.getValue(), files);
            }
        }
    }

    private static void measure(int round, String name, Path inbox, String options, int files) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getRegistry().bind("order", (Comparator<GenericFile<?>>) (a, b) -> a.getFileNameOnly().compareTo(b.getFileNameOnly()));
            context.getRegistry().bind("guard", new InboxGuard(new DeadLetterStore(inbox.resolveSibling(inbox.getFileName() + "-dl").toString()),
                    new Rejections(), new UpstreamLiveness(), new InboxInProgress(2 * 2000)));
            context.addComponent("liveoddsFile", new InboxFileComponent());
            String scheme = name.startsWith("liveoddsFile") ? "liveoddsFile:" : "file:";
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from(scheme + inbox + "?" + options).routeId("inbox").autoStartup(false)
                            .process(e -> seen.add(e.getMessage().getHeader("CamelFileName", String.class)));
                }
            });
            context.start();
            long cpuStart = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
            long start = System.nanoTime();
            context.getRouteController().startRoute("inbox");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(1)).until(() -> !seen.isEmpty());
            long first = System.nanoTime() - start;
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(1)).until(() -> seen.size() >= 500);
            long batch = System.nanoTime() - start;
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(5)).until(() -> seen.size() >= files);
            long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() - cpuStart;
            List<String> sorted = new ArrayList<>(seen);
            sorted.sort(null);
            boolean inOrder = sorted.equals(seen);
            // a file dropped into the now empty inbox, as a producer renames it into place: how long until it is read
            long latencies = 0;
            for (int i = 0; i < 5; i++) {
                Path tmp = inbox.resolve(".fresh-" + i + ".json.tmp");
                Files.writeString(tmp, "{}");
                int before = seen.size();
                long dropped = System.nanoTime();
                Files.move(tmp, inbox.resolve("z-fresh-" + i + ".json"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> seen.size() > before);
                latencies += System.nanoTime() - dropped;
            }
            System.out.printf("round %d, %s: first message after %d ms, first poll's 500 after %d ms (all in file-name order: %s);"
                    + " the whole inbox took %d ms of CPU; a fresh file read after %d ms on average%n", round, name, first / 1_000_000,
                    batch / 1_000_000, inOrder, cpu / 1_000_000, latencies / 5 / 1_000_000);
        }
    }
}
