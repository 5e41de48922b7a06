package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.support.CapturedLogs;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inbox listed once for all partners (routes/source-file.yaml, liveodds-source-file-shared), on real files, each
 * file read once and handed to the partners that take it, as delivery does: a partner that keeps its files in hand
 * (down) holds only its share, in file-name order, the others get every file in order, a partner whose queue refuses a
 * file gets it again before any later one, and a file leaves the inbox once every partner is done with it.
 */
class SharedInboxTest {

    @TempDir
    Path work;
    private Path inbox;
    private DefaultCamelContext context;
    private final Map<String, List<String>> got = new ConcurrentHashMap<>();
    /** The handovers of partner "down"'s copies, held as its delivery queues would while it is down. */
    private final ConcurrentLinkedQueue<SourceHandover> held = new ConcurrentLinkedQueue<>();
    /** Files partner "down"'s queue refuses the first time, as a full queue does (the copy handed back at once). */
    private final Set<String> refuseOnce = ConcurrentHashMap.newKeySet();
    private final AtomicInteger reads = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        inbox = Files.createDirectories(work.resolve("inbox"));
        startContext();
    }

    /** The service's part of the inbox, as a start (or a restart after a crash) makes it: nothing in memory. */
    private void startContext() throws Exception {
        context = new DefaultCamelContext();
        SharedInbox shared = new SharedInbox(new InboxGuard(new DeadLetterStore(work.resolve("dead").toString()), new Rejections(),
                new UpstreamLiveness(), new InboxInProgress(100)));
        shared.setDir(inbox.toString());
        shared.setPartners("up,down");
        // the delivery queues of each partner take 5 pushes: so does its share of the inbox
        shared.setQueueSize(5);
        context.getRegistry().bind("shared", shared);
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("file:" + inbox + "?include=RAW((?s).*\\.json)&noop=true&idempotent=false&filter=#bean:shared&pollStrategy=#bean:shared"
                        + "&preSort=true&readLock=none&delay=20&maxMessagesPerPoll=2000&eagerMaxMessagesPerPoll=true")
                        .process(shared::share)
                        .filter(e -> e.getVariable(SourceHandover.Shared.VARIABLE) != null)
                        .process(SharedInboxTest.this::deliver);
            }
        });
        context.start();
    }

    /** What delivery does with a shared file: read once, each taker's copy into its queue with its own handover. */
    private void deliver(Exchange exchange) {
        String body = exchange.getMessage().getBody(String.class);
        reads.incrementAndGet();
        SourceHandover.Shared shared = exchange.getVariable(SourceHandover.Shared.VARIABLE, SourceHandover.Shared.class);
        for (String partner : shared.partners()) {
            got.computeIfAbsent(partner, p -> new ArrayList<>()).add(body);
            SourceHandover handover = shared.forPartner(partner);
            if (partner.equals("up")) {
                handover.acknowledge();
            } else if (refuseOnce.remove(body)) {
                handover.handBack("the delivery queues of partner down are full");
            } else {
                held.add(handover);
            }
        }
    }

    @AfterEach
    void stop() throws Exception {
        context.close();
    }

    @Test
    void aPartnerThatIsDownHoldsOnlyItsShareInOrderAndTheFilesWaitInTheInboxUntilItIsDone() throws Exception {
        List<String> all = IntStream.range(0, 40).mapToObj(i -> String.format("f-%03d", i)).toList();
        for (String id : all) {
            drop(id);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> got.getOrDefault("up", List.of()).size() == all.size());
        assertThat(got.get("up")).containsExactlyElementsOf(all);
        // down has its share, the first five in order, and no more however long it waits
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> held.size() == 5);
        assertThat(got.get("down")).containsExactlyElementsOf(all.subList(0, 5));
        assertThat(jsonLeft()).as("every file waits in the inbox for down").hasSize(all.size());

        // down is back: each file it finishes frees room for the next ones, in order, and every file moves to .done/
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            SourceHandover next;
            while ((next = held.poll()) != null) {
                next.acknowledge();
            }
            return got.get("down").size() == all.size();
        });
        assertThat(got.get("down")).containsExactlyElementsOf(all);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            held.forEach(SourceHandover::acknowledge);
            held.clear();
            return jsonLeft().isEmpty();
        });
        try (Stream<Path> done = Files.list(inbox.resolve(".done"))) {
            assertThat(done).hasSize(all.size());
        }
        assertThat(got.get("up")).as("up was not given a file again").hasSize(all.size());
        assertThat(reads.get()).as("a file is read once for both partners that take it at once, and once more for down"
                + " for each file it took later").isLessThanOrEqualTo(2 * all.size());
    }

    @Test
    void aFileAPartnersQueueRefusesComesToItAgainBeforeAnyLaterFile() throws Exception {
        List<String> all = IntStream.range(0, 4).mapToObj(i -> String.format("r-%03d", i)).toList();
        refuseOnce.add("r-001");
        for (String id : all) {
            drop(id);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            SourceHandover next;
            while ((next = held.poll()) != null) {
                next.acknowledge();
            }
            return jsonLeft().isEmpty();
        });
        assertThat(got.get("down")).as("refused once, then again in order").containsExactly("r-000", "r-001", "r-001", "r-002", "r-003");
        assertThat(got.get("up")).containsExactlyElementsOf(all);
    }

    @Test
    void aFileHandedBackByAPartnerIsOfferedToItAgainAndOnlyToIt() throws Exception {
        drop("g-001");
        await().atMost(Duration.ofSeconds(30)).until(() -> held.size() == 1 && got.getOrDefault("up", List.of()).size() == 1);
        held.poll().handBack("handed back at shutdown");

        await().atMost(Duration.ofSeconds(30)).until(() -> held.size() == 1);
        assertThat(got.get("down")).containsExactly("g-001", "g-001");
        assertThat(got.get("up")).containsExactly("g-001");
        assertThat(inbox.resolve("g-001.json")).exists();
        held.poll().acknowledge();
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(inbox.resolve(".done/g-001.json")));
    }

    @Test
    void afterARestartAPartnerGetsNoneOfTheFilesItWasDoneWithWhateverTheirNames() throws Exception {
        // names as producers may write them: non-ASCII ones that a platform charset would make alike, a line break
        List<String> all = List.of("h-001", "h-002-\u00e8", "h-002-\u00e9", "h-003-a\nb", "h-004-a+b %41");
        for (String id : all) {
            drop(id);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> got.getOrDefault("up", List.of()).size() == all.size() && held.size() == all.size());
        held.clear(); // down never finishes them: the service stops (as in a crash) with them in its hands
        context.close();
        got.clear();

        startContext();
        await().atMost(Duration.ofSeconds(30)).until(() -> held.size() == all.size());
        assertThat(got.get("down")).containsExactlyElementsOf(all);
        assertThat(got).as("up is given none of them again").doesNotContainKey("up");
        held.forEach(SourceHandover::acknowledge);
        held.clear();
        await().atMost(Duration.ofSeconds(30)).until(() -> jsonLeft().isEmpty());
        try (Stream<Path> done = Files.list(inbox.resolve(".done"))) {
            assertThat(done.map(p -> p.getFileName().toString())).containsExactlyInAnyOrderElementsOf(
                    all.stream().map(id -> id + ".json").toList());
        }
        // every file moved; while the service is stopped a producer names a new file as an earlier one: it is new
        context.close();
        got.clear();
        drop("h-001");
        startContext();
        await().atMost(Duration.ofSeconds(30)).until(() -> got.containsKey("up") && held.size() == 1);
        assertThat(got.get("down")).containsExactly("h-001");
        held.forEach(SourceHandover::acknowledge);
        await().atMost(Duration.ofSeconds(30)).until(() -> jsonLeft().isEmpty());
        // no partner's progress keeps the name of a file that moved: in memory, and on disk from the next start
        context.close();
        startContext();
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readAllLines(inbox.resolve(".progress/up")).isEmpty()
                && Files.readAllLines(inbox.resolve(".progress/down")).isEmpty());
    }

    @Test
    void aFileEveryPartnerWasDoneWithBeforeItCouldMoveMovesAtTheNextStartAndGoesToNoPartner() throws Exception {
        context.close();
        drop("k-001");
        drop("k-002");
        // the crash came between the last partner's end of k-001 and its move to .done/
        Files.createDirectories(inbox.resolve(".progress"));
        Files.writeString(inbox.resolve(".progress/up"), "k-001.json\n");
        Files.writeString(inbox.resolve(".progress/down"), "k-001.json\n");

        startContext();
        await().atMost(Duration.ofSeconds(30)).until(() -> held.size() == 1 && got.containsKey("up")
                && Files.exists(inbox.resolve(".done/k-001.json")));
        assertThat(got.get("up")).containsExactly("k-002");
        assertThat(got.get("down")).containsExactly("k-002");
    }

    @Test
    void aFileRenamedOverOneAPartnerIsDoneWithGoesToThatPartnerTooWhenAnotherReadsIt() throws Exception {
        try (CapturedLogs logs = CapturedLogs.of(SharedInbox.class)) {
            renameOverAFileOnlyUpRead();
            // down never read the file it replaced: that message is gone, and said so
            assertThat(logs.messages()).filteredOn(m -> m.contains("x-001.json") && m.contains("never reaches partner down"))
                    .hasSize(1);
        }
    }

    private void renameOverAFileOnlyUpRead() throws Exception {
        List<String> first = IntStream.range(0, 5).mapToObj(i -> String.format("h-%03d", i)).toList();
        for (String id : first) {
            drop(id);
        }
        // down's share is full: it does not read the next file while up is done with it
        await().atMost(Duration.ofSeconds(20)).until(() -> held.size() == 5);
        drop("x-001");
        await().atMost(Duration.ofSeconds(20)).until(() -> got.get("up").contains("x-001"));
        Path hidden = inbox.resolve(".x-001.json");
        Files.writeString(hidden, "x-001 again");
        Files.move(hidden, inbox.resolve("x-001.json"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            SourceHandover next;
            while ((next = held.poll()) != null) {
                next.acknowledge();
            }
            return jsonLeft().isEmpty();
        });
        assertThat(got.get("down")).containsExactly("h-000", "h-001", "h-002", "h-003", "h-004", "x-001 again");
        assertThat(got.get("up")).containsSubsequence("x-001", "x-001 again");
        assertThat(got.get("up")).filteredOn(b -> b.startsWith("x-")).hasSize(2);
    }

    private void drop(String id) throws Exception {
        Path hidden = inbox.resolve("." + id + ".json");
        Files.writeString(hidden, id);
        Files.move(hidden, inbox.resolve(id + ".json"));
    }

    private List<String> jsonLeft() throws Exception {
        try (Stream<Path> files = Files.list(inbox)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json") && !n.startsWith(".")).toList();
        }
    }
}
