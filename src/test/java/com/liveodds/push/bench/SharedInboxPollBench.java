package com.liveodds.push.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.source.file.InboxGuard;
import com.liveodds.push.source.file.InboxInProgress;
import com.liveodds.push.source.file.SharedInbox;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.awaitility.Awaitility.await;

/**
 * What a backlog left in the inbox for a partner that is down costs the partners that are up: the one listing of the
 * inbox (routes/source-file.yaml, liveodds-source-file-shared) runs every poll (50 ms) and skips by name the files no
 * partner with room wants. Once the partners that are up have every file and the one that is down has its files in
 * hand, prints the CPU of the process over 5 s for 1, 3 and 15 partners up and inboxes of 5,000 and 20,000 files: with
 * no new file (the listing is skipped while nothing changed, and made once a second), and with a new file every 100 ms.
 * Not a test: {@code mvn -B -o test -Dtest=SharedInboxPollBench -Dtest.excludedGroups=none}.
 */
@Tag("bench")
class SharedInboxPollBench {

    /** The files a partner has in hand at most (its share of liveodds.delivery.queue-size). */
    private static final int IN_HAND = 1000;

    @Test
    void theListingOfAnInboxWhoseFilesWaitForAPartnerThatIsDown(@TempDir Path work) throws Exception {
        for (int files : new int[] {5_000, 20_000}) {
            for (int up : new int[] {1, 3, 15}) {
                measure(Files.createDirectory(work.resolve("inbox-" + files + "-" + up)), files, up);
            }
        }
    }

    private interface Work {
        void run() throws Exception;
    }

    /** Percent of one core the process used during the work. */
    private static double cpuOver(Work work) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu = os.getProcessCpuTime();
        long wall = System.nanoTime();
        work.run();
        return 100.0 * (os.getProcessCpuTime() - cpu) / (System.nanoTime() - wall);
    }

    private static void measure(Path inbox, int files, int up) throws Exception {
        for (int i = 0; i < files; i++) {
            Files.writeString(inbox.resolve(String.format("m-%06d.json", i)), "{}");
        }
        List<String> upNames = java.util.stream.IntStream.range(0, up).mapToObj(i -> "up" + i).toList();
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            InboxGuard guard = new InboxGuard(new DeadLetterStore(inbox.resolveSibling(inbox.getFileName() + "-dl").toString()),
                    new Rejections(), new UpstreamLiveness(), new InboxInProgress(2 * 2000));
            SharedInbox shared = new SharedInbox(guard);
            shared.setDir(inbox.toString());
            shared.setPartners(String.join(",", upNames) + ",down");
            context.getRegistry().bind("shared", shared);
            shared.setQueueSize(IN_HAND);
            AtomicInteger taken = new AtomicInteger();
            // the partner that is down keeps its files in hand, as its delivery queues would
            ConcurrentLinkedQueue<SourceHandover> held = new ConcurrentLinkedQueue<>();
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("file:" + inbox + "?include=.*\\.json&noop=true&idempotent=false&filter=#bean:shared&pollStrategy=#bean:shared"
                            + "&preSort=true&readLock=none&delay=50&maxMessagesPerPoll=2000&eagerMaxMessagesPerPoll=true")
                            .process(shared::share)
                            .filter(e -> e.getVariable(SourceHandover.Shared.VARIABLE) != null)
                            .process(e -> {
                                SourceHandover.Shared share = e.getVariable(SourceHandover.Shared.VARIABLE, SourceHandover.Shared.class);
                                for (String name : share.partners()) {
                                    if (name.equals("down")) {
                                        held.add(share.forPartner(name));
                                    } else {
                                        share.forPartner(name).acknowledge();
                                        taken.incrementAndGet();
                                    }
                                }
                            });
                }
            });
            context.start();
            await().atMost(5, TimeUnit.MINUTES).until(() -> taken.get() == files * up && held.size() == IN_HAND);
            // the sleeps are the measurement: the poll in progress ends, then 5 s of an unchanged inbox are timed
            Thread.sleep(500); // the poll in progress ends: not a condition to await, the quiet that follows is measured
            double quiet = cpuOver(() -> Thread.sleep(5000)); // the measured window itself
            // the upstream goes on: a new file every 100 ms, which every partner that is up takes
            double flowing = cpuOver(() -> {
                for (int i = 0; i < 50; i++) {
                    Path hidden = inbox.resolve(String.format(".n-%06d.json", i));
                    Files.writeString(hidden, "{}");
                    Files.move(hidden, inbox.resolve(String.format("n-%06d.json", i)));
                    Thread.sleep(100); // the upstream's pace, the load being measured
                }
            });
            System.out.printf("shared inbox: %d files left for a partner that is down (%d in its hands), %d partners up;"
                    + " the listing costs %.1f%% of one core with no new file, %.1f%% with one every 100 ms%n", files, held.size(), up,
                    quiet, flowing);
        }
    }
}
