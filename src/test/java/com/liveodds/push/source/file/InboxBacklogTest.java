package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.LoopbackPartner.Arrival;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backlog larger than one poll of the inbox (liveodds.source.file.max-per-poll, here its least), written in scrambled
 * order before the service starts: each match's pushes still reach the partner in file-name order, with one partner
 * (liveodds-source-file) and with several (liveodds-source-file-shared), and every file leaves the inbox.
 */
class InboxBacklogTest {

    /** The least batch a setting can give: a backlog of 230 files takes three listings. */
    private static final int PER_POLL = 100;
    private static final int FILES = 230;
    private static final int READ_PER_POLL = 10;
    private static final int MATCHES = 3;

    @Test
    void aBacklogOfMoreThanOnePollIsPushedInFileNameOrder(@TempDir Path work) throws Exception {
        writeScrambledBacklog(work.resolve("inbox"), FILES);
        try (LoopbackPartner partner = new LoopbackPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                     .set("liveodds.source.file.max-per-poll", Integer.toString(PER_POLL)).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> inboxIsEmpty(service.inbox()));
            assertEachMatchInFileNameOrder(partner, FILES);
        }
    }

    @Test
    void aBacklogOfMoreThanOnePollIsPushedToEachPartnerInFileNameOrder(@TempDir Path work) throws Exception {
        writeScrambledBacklog(work.resolve("inbox"), FILES);
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner();
             RunningService service = RunningService.builder().partner("a", "1", a.baseUrl(), a.authUrl())
                     .partner("b", "2", b.baseUrl(), b.authUrl()).work(work)
                     .set("liveodds.source.file.max-per-poll", Integer.toString(PER_POLL)).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> inboxIsEmpty(service.inbox()));
            assertEachMatchInFileNameOrder(a, FILES);
            assertEachMatchInFileNameOrder(b, FILES);
        }
    }

    /**
     * liveodds.source.file.max-per-poll bounds what the service holds of a backlog: a listing takes that many files, and
     * the next waits while a poll's worth of them is in hand and going, so a slow match never has the whole inbox queued.
     */
    @Test
    void aListingTakesMaxPerPollFilesSoABacklogIsNotAllHeldAtOnce(@TempDir Path work) throws Exception {
        int mostQueued = mostQueuedWhileABacklogDrains(work, 6 * PER_POLL, PER_POLL);
        // a listing takes a batch, the next waits while a batch is in hand and going (or a second at most)
        assertThat(mostQueued).as("pushes queued at most").isPositive().isLessThanOrEqualTo(3 * PER_POLL);
    }

    /**
     * liveodds.source.file.read-per-poll: a poll reads that many of its listing's names and the next polls read the rest
     * in order, so the service holds a few files of a backlog at once while it lists the inbox once per max-per-poll.
     */
    @Test
    void aPollReadsReadPerPollFilesOfItsListingAndTheNextPollsTheRest(@TempDir Path work) throws Exception {
        int mostQueued = mostQueuedWhileABacklogDrains(work, 6 * PER_POLL, READ_PER_POLL);
        assertThat(mostQueued).as("pushes queued at most").isPositive().isLessThanOrEqualTo(3 * READ_PER_POLL);
    }

    /**
     * The most pushes queued at once while a scrambled backlog of {@code files} drains to a partner at 5 ms, listed
     * PER_POLL names at a time and read {@code readPerPoll} at a poll; each match in file-name order.
     */
    private static int mostQueuedWhileABacklogDrains(Path work, int files, int readPerPoll) throws Exception {
        writeScrambledBacklog(work.resolve("inbox"), files);
        AtomicInteger mostQueued = new AtomicInteger();
        try (LoopbackPartner partner = new LoopbackPartner().latency(5);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                     .set("liveodds.source.file.max-per-poll", Integer.toString(PER_POLL))
                     .set("liveodds.source.file.read-per-poll", Integer.toString(readPerPoll)).start()) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                mostQueued.accumulateAndGet(MetricsScrape.of(service).value("liveodds_backlog_messages").intValue(), Math::max);
                return inboxIsEmpty(service.inbox());
            });
            assertEachMatchInFileNameOrder(partner, files);
        }
        return mostQueued.get();
    }

    /**
     * A file handed back to the inbox (here: its push refused and its dead letter not written) while later names of its
     * listing wait to be read: the next poll lists the inbox again and reads it first, so no later message of its match
     * reaches the partner before it.
     */
    @Test
    void aFileHandedBackIsReadAgainBeforeTheLaterNamesOfItsListing(@TempDir Path work) throws Exception {
        Path inbox = work.resolve("inbox");
        for (int i = 0; i < 40; i++) {
            RunningService.drop(inbox, String.format("f-%05d.json", i),
                    Messages.odds(String.format("m-%05d", i), Messages.external("0", 700)));
        }
        try (LoopbackPartner partner = new LoopbackPartner().refusing(path -> path.contains("match:700"));
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                     .set("liveodds.source.file.max-per-poll", Integer.toString(PER_POLL))
                     .set("liveodds.source.file.read-per-poll", "2")
                     // not a folder that can ever be written: every dead letter fails, the file goes back to the inbox
                     .set("liveodds.dead-letter.dir", "/dev/null/dead-letter").start()) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> partner.arrivals().stream().filter(a -> a.messageId().equals("m-00000")).count() >= 3);
            assertThat(partner.arrivals().stream().filter(a -> !a.isHeartbeat()).map(Arrival::messageId))
                    .as("attempts").containsOnly("m-00000");
            assertThat(inbox.resolve("f-00000.json")).as("the refused file stays in the inbox").exists();
        }
    }

    /**
     * Entries the guard leaves in the inbox without taking them (here folders named like messages), more of them than a
     * listing takes and all ahead of the files by name, hold back no file: the listing goes on past them to its batch
     * (liveoddsFile keeps a batch of names before it looks at them on disk; with one pass it would take nothing).
     */
    @Test
    void foldersNamedLikeMessagesAheadOfTheBacklogHoldBackNoFile(@TempDir Path work) throws Exception {
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        for (int i = 0; i < 2 * PER_POLL; i++) {
            Files.createDirectories(inbox.resolve(String.format("a-%05d.json", i)));
        }
        writeScrambledBacklog(inbox, FILES);
        try (LoopbackPartner partner = new LoopbackPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl()).work(work)
                     .set("liveodds.source.file.max-per-poll", Integer.toString(PER_POLL)).start()) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> partner.arrivals().stream().filter(a -> !a.isHeartbeat()).count() == FILES);
            assertEachMatchInFileNameOrder(partner, FILES);
            assertThat(inbox.resolve("a-00000.json")).as("a folder is left alone").isDirectory();
        }
    }

    /** File i holds message m-i of match i % 3; the files are created in an order unrelated to their names. */
    private static void writeScrambledBacklog(Path inbox, int files) {
        for (int n = 0; n < files; n++) {
            int i = (int) ((n * 7919L) % files);
            RunningService.drop(inbox, String.format("f-%05d.json", i),
                    Messages.odds(String.format("m-%05d", i), Messages.external(Integer.toString(i % MATCHES), 700 + i % MATCHES)));
        }
    }

    private static boolean inboxIsEmpty(Path inbox) throws IOException {
        try (Stream<Path> entries = Files.list(inbox)) {
            return entries.noneMatch(p -> p.getFileName().toString().endsWith(".json"));
        }
    }

    /** Per match, every message once, in file-name order (all are deltas: none is superseded). */
    private static void assertEachMatchInFileNameOrder(LoopbackPartner partner, int files) {
        List<Arrival> pushes = partner.arrivals().stream().filter(a -> !a.isHeartbeat()).toList();
        for (int match = 0; match < MATCHES; match++) {
            int of = match;
            String matchId = "match:" + (700 + match);
            List<String> expected = IntStream.range(0, files).filter(i -> i % MATCHES == of).mapToObj(i -> String.format("m-%05d", i)).toList();
            assertThat(pushes.stream().filter(a -> a.matchId().equals(matchId)).map(Arrival::messageId).toList())
                    .as("pushes of %s", matchId).containsExactlyElementsOf(expected);
        }
    }
}
