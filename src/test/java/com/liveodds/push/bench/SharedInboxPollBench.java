package com.liveodds.push.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.source.file.InboxGuard;
import com.liveodds.push.source.file.InboxOrder;
import com.liveodds.push.source.file.SharedInbox;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a backlog left in the inbox for a partner that is down costs a partner that is up: its reading lists the whole
 * inbox every poll (50 ms) and skips, by name, the files it is done with. Prints the CPU of one such reading over
 * 5 s for inboxes of 5,000 and 20,000 files. Not a test: {@code mvn -B test -Pbench -Dtest=SharedInboxPollBench}.
 */
@Tag("bench")
class SharedInboxPollBench {

    @Test
    void aReadingThatIsDoneWithEveryFileOfALargeInbox() throws Exception {
        for (int files : new int[] {5_000, 20_000}) {
            Path inbox = Files.createTempDirectory("shared-inbox-bench");
            for (int i = 0; i < files; i++) {
                Files.writeString(inbox.resolve(String.format("m-%06d.json", i)), "{}");
            }
            try (DefaultCamelContext context = new DefaultCamelContext()) {
                InboxGuard guard = new InboxGuard(new DeadLetterStore(inbox.resolveSibling(inbox.getFileName() + "-dl").toString()),
                        new Rejections(), new UpstreamLiveness());
                SharedInbox shared = new SharedInbox(guard);
                shared.setCamelContext(context);
                shared.setDir(inbox.toString());
                shared.setPartners("up,down");
                shared.install();
                SharedInbox.Reading up = context.getRegistry().lookupByNameAndType(SharedInbox.READING + "-up", SharedInbox.Reading.class);
                for (int i = 0; i < files; i++) {
                    up.add(String.format("m-%06d.json", i));
                }
                context.getRegistry().bind("order", new InboxOrder());
                AtomicInteger taken = new AtomicInteger();
                context.addRoutes(new RouteBuilder() {
                    @Override
                    public void configure() {
                        from("file:" + inbox + "?include=.*\\.json&noop=true&idempotent=true&idempotentEager=false"
                                + "&idempotentRepository=#bean:liveoddsInboxReading-up&filter=#bean:liveoddsInboxReading-up"
                                + "&idempotentKey=${file:name}&sorter=#bean:order&readLock=none&delay=50&maxMessagesPerPoll=2000"
                                + "&eagerMaxMessagesPerPoll=false")
                                .process(e -> taken.incrementAndGet());
                    }
                });
                context.start();
                Thread.sleep(1000);
                var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long cpu = os.getProcessCpuTime();
                long wall = System.nanoTime();
                Thread.sleep(5000);
                double share = 100.0 * (os.getProcessCpuTime() - cpu) / (System.nanoTime() - wall);
                System.out.printf("shared inbox: %d files left for a partner that is down, a partner that is up took %d and its reading"
                        + " costs %.1f%% of one core%n", files, taken.get(), share);
            }
        }
    }
}
