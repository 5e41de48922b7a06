package com.liveodds.push.bench;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.source.file.InboxGuard;
import com.liveodds.push.source.file.InboxOrder;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One poll of the file source over a large inbox (default 20,000 files; -Dbench.files=...), with the options the file
 * source had (sortBy file:name, changed read lock of 200 ms) and the ones it has now (a plain comparator, the inbox
 * guard, no read lock). Not a test: it prints how long until the first message of the poll is handed on and until
 * its 500 messages are. Run with {@code mvn -B test -Pbench -Dtest=InboxPollBench}.
 */
@Tag("bench")
class InboxPollBench {

    private static final String COMMON = "include=.*\\.json&move=.done&maxMessagesPerPoll=500&eagerMaxMessagesPerPoll=false&delay=200&initialDelay=0";

    @Test
    void onePollOverALargeInbox(@TempDir Path work) throws Exception {
        int files = Integer.getInteger("bench.files", 20_000);
        Map<String, String> variants = Map.of(
                "before (sortBy file:name, readLock changed 200 ms)",
                COMMON + "&sortBy=file:name&readLock=changed&readLockMinAge=200&readLockCheckInterval=100&readLockMinLength=0",
                "after (sorter bean, InboxGuard filter, readLock none)",
                COMMON + "&sorter=#bean:order&filter=#bean:guard&readLock=none");
        for (int round = 1; round <= 2; round++) {
            for (Map.Entry<String, String> variant : variants.entrySet()) {
                Path inbox = Files.createDirectory(work.resolve("inbox-" + round + "-" + variant.getKey().split(" ")[0]));
                for (int i = 0; i < files; i++) {
                    Files.writeString(inbox.resolve(String.format("m-%06d.json", (i * 7919) % files)), "{\"n\":" + i + "}");
                }
                measure(round, variant.getKey(), inbox, variant.getValue());
            }
        }
    }

    private static long inboxSize(Path inbox) throws java.io.IOException {
        try (var entries = Files.list(inbox)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".json")).count();
        }
    }

    private static void measure(int round, String name, Path inbox, String options) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getRegistry().bind("order", new InboxOrder());
            context.getRegistry().bind("guard", new InboxGuard(new DeadLetterStore(inbox.resolveSibling(inbox.getFileName() + "-dl").toString()),
                    new Rejections(), new UpstreamLiveness()));
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("file:" + inbox + "?" + options).routeId("inbox").autoStartup(false)
                            .process(e -> seen.add(e.getMessage().getHeader("CamelFileName", String.class)));
                }
            });
            context.start();
            long start = System.nanoTime();
            context.getRouteController().startRoute("inbox");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(1)).until(() -> !seen.isEmpty());
            long first = System.nanoTime() - start;
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(1)).until(() -> seen.size() >= 500);
            long batch = System.nanoTime() - start;
            List<String> sorted = new ArrayList<>(seen.subList(0, 500));
            sorted.sort(null);
            boolean inOrder = sorted.equals(seen.subList(0, 500)) && seen.get(0).equals("m-000000.json");
            await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(5)).until(() -> seen.size() >= inboxSize(inbox));
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
            System.out.printf("round %d, %s: first message after %d ms, first poll's 500 after %d ms (file-name order: %s);"
                    + " a fresh file read after %d ms on average%n", round, name, first / 1_000_000, batch / 1_000_000, inOrder,
                    latencies / 5 / 1_000_000);
        }
    }
}
