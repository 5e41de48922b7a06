package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file source with three partners (contract 16): each partner reads the inbox on its own, a file leaves the inbox
 * once every partner is done with it, a partner that is down holds back only its own reading, and a message is judged
 * (validated, resolved, rejected) once for all of them.
 */
class FileSourcePartnersTest {

    @TempDir
    static Path work;

    private static LoopbackPartner a;
    private static LoopbackPartner b;
    private static LoopbackPartner c;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        a = new LoopbackPartner();
        b = new LoopbackPartner();
        c = new LoopbackPartner();
        Files.writeString(work.resolve("booking-b.txt"), "match:900\n901\n");
        Files.writeString(work.resolve("booking-c.txt"), "# c\nmatch:901\nmatch:902\n");
        service = RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .partner("c", "303", c.baseUrl(), c.authUrl())
                .set("liveodds.partners.b.booking", work.resolve("booking-b.txt").toString())
                .set("liveodds.partners.c.booking", work.resolve("booking-c.txt").toString())
                // a partner that is down fills its queues quickly: the rest of its backlog waits in the inbox
                .set("liveodds.delivery.queue-size", "4")
                .set("liveodds.delivery.backoff.initial", "50ms")
                .set("liveodds.delivery.backoff.max", "200ms")
                .set("liveodds.source.file.max-size", "64KB")
                .work(work)
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        a.close();
        b.close();
        c.close();
    }

    @Test
    void eachPartnerGetsItsBookedMatchesFromTheInboxAndTheFileThenMovesToDone() {
        service.drop("book-001.json", Messages.odds("book-900", Messages.external("90", 900)));
        service.drop("book-002.json", Messages.odds("book-901", Messages.external("91", 901)));
        service.drop("book-003.json", Messages.odds("book-902", Messages.external("92", 902)));

        await().atMost(Duration.ofSeconds(20)).until(() -> ids(a, "book-").size() == 3 && ids(b, "book-").size() == 2
                && ids(c, "book-").size() == 2);
        assertThat(ids(a, "book-")).containsExactlyInAnyOrder("book-900", "book-901", "book-902");
        assertThat(ids(b, "book-")).containsExactlyInAnyOrder("book-900", "book-901");
        assertThat(ids(c, "book-")).containsExactlyInAnyOrder("book-901", "book-902");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(service.done().resolve("book-001.json"))
                && Files.exists(service.done().resolve("book-002.json")) && Files.exists(service.done().resolve("book-003.json")));
        assertThat(service.inbox().resolve("book-002.json")).doesNotExist();
        // each partner got each of its messages once: no partner read a file twice
        assertThat(a.arrivals()).filteredOn(r -> r.messageId() != null && r.messageId().startsWith("book-")).hasSize(3);
    }

    @Test
    void aBadInboxEntryIsJudgedDeadLetteredAndCountedOnceWhateverTheNumberOfPartners() throws Exception {
        long lettersBefore = service.deadLetterCount();
        double rejectedBefore = rejected();
        service.drop("bad-001.json", "{\"message_id\": not json");
        service.drop("bad-002.json", Messages.odds("bad-unresolvable", "{\"fight_id\":\"x9\",\"card_id\":\"abc\"}"));
        service.drop("bad-003.json", "{\"message_id\":\"bad-big\",\"pad\":\"" + "x".repeat(70 * 1024) + "\"}");
        Path target = Files.writeString(service.work().resolve("outside.json"), Messages.odds("bad-link", Messages.external("93", 901)));
        Path link = service.inbox().resolve(".bad-004.json");
        Files.createSymbolicLink(link, target);
        Files.move(link, service.inbox().resolve("bad-004.json"));
        Path folder = Files.createDirectories(service.work().resolve("a-folder"));
        Path folderLink = Files.createSymbolicLink(service.inbox().resolve("bad-000.json"), folder);
        service.drop("bad-005.json", Messages.odds("bad-after", Messages.external("94", 901)));

        // the valid message behind them reaches everyone who booked it, the bad ones are settled for all partners
        await().atMost(Duration.ofSeconds(20)).until(() -> ids(a, "bad-").contains("bad-after")
                && ids(b, "bad-").contains("bad-after") && ids(c, "bad-").contains("bad-after"));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(service.done().resolve("bad-002.json"))
                && Files.exists(service.done().resolve("bad-005.json")));
        await().atMost(Duration.ofSeconds(30)).until(() -> service.deadLetterCount() - lettersBefore >= 5);
        // once, not once per partner: the count holds still
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> service.deadLetterCount() - lettersBefore == 5 && rejected() - rejectedBefore == 5.0);
        assertThat(service.deadLetterEntries()).extracting(l -> l.path("message_id").asText())
                .filteredOn(id -> id.equals("bad-unresolvable")).hasSize(1);
        assertThat(ids(a, "bad-")).containsExactly("bad-after");
        assertThat(target).exists();
        assertThat(service.inbox().resolve("bad-004.json")).doesNotExist();
        assertThat(Files.exists(folderLink, LinkOption.NOFOLLOW_LINKS)).as("a link to a folder, never descended").isFalse();
        assertThat(folder).isDirectory();
    }

    @Test
    void aPartnerThatIsDownHoldsBackOnlyItsOwnReadingAndGetsItsBacklogFromTheInboxWhenBack() throws Exception {
        b.failing(path -> true);
        try {
            List<String> sent = new ArrayList<>();
            long dropped = System.nanoTime();
            // first in file-name order, for a match b has not booked: b's reading is done with it at once
            service.drop("down--unbooked.json", Messages.odds("unbooked-902", Messages.external("d902", 902)));
            for (int i = 0; i < 12; i++) {
                String id = String.format("down-%02d", i);
                long match = i % 2 == 0 ? 901 : 900;
                service.drop(id + ".json", Messages.odds(id, Messages.external("d" + match, match)));
                sent.add(id);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> ids(a, "down-").size() == 12 && ids(c, "down-").size() == 6);
            long lastAtA = a.arrivals().stream().filter(r -> id(r).startsWith("down-")).mapToLong(LoopbackPartner.Arrival::atNanos)
                    .max().orElseThrow();
            System.out.printf("partner b down: 12 files reached partner a within %d ms%n", (lastAtA - dropped) / 1_000_000);
            assertThat((lastAtA - dropped) / 1_000_000).as("ms for partner a while b is down").isLessThan(5000);
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(service.done().resolve("down--unbooked.json")));
            // b has none of them: every file waits in the inbox for it, none in .done
            await().atMost(Duration.ofSeconds(5)).until(() -> b.arrivals().stream().anyMatch(r -> id(r).startsWith("down-")));
            assertThat(sent).allSatisfy(id -> {
                assertThat(service.inbox().resolve(id + ".json")).exists();
                assertThat(service.done().resolve(id + ".json")).doesNotExist();
            });
            assertThat(ids(c, "down-")).containsExactly("down-00", "down-02", "down-04", "down-06", "down-08", "down-10");
        } finally {
            b.failing(path -> false);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered(b, "down-").size() == 12);
        // per match in upstream order, once the repeats of the failed attempts are left out
        Map<String, List<String>> byMatch = b.arrivals().stream().filter(r -> r.status() == 202 && id(r).startsWith("down-"))
                .collect(Collectors.groupingBy(LoopbackPartner.Arrival::matchId, Collectors.mapping(LoopbackPartner.Arrival::messageId,
                        Collectors.toList())));
        assertThat(byMatch.get("match:900")).containsExactly("down-01", "down-03", "down-05", "down-07", "down-09", "down-11");
        assertThat(byMatch.get("match:901")).containsExactly("down-00", "down-02", "down-04", "down-06", "down-08", "down-10");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(service.done().resolve("down-11.json"))
                && Files.exists(service.done().resolve("down-10.json")));
        try (var left = Files.list(service.inbox())) {
            assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("down-"))).isEmpty();
        }
        // a and c were not given their messages again when b's turn came
        assertThat(a.arrivals()).filteredOn(r -> id(r).startsWith("down-")).hasSize(12);
    }

    @Test
    void aBadFileIsReportedOnceWhileTheFirstPartnerIsHeldBackByItsBacklog() throws Exception {
        long lettersBefore = service.deadLetterCount();
        double rejectedBefore = rejected();
        a.failing(path -> true);
        try {
            for (int i = 0; i < 8; i++) {
                service.drop(String.format("held-%02d.json", i), Messages.odds(String.format("held-%02d", i), Messages.external("h", 901)));
            }
            // a's queues are full: its reading waits before the bad file, which b and c judge and report without it
            service.drop("held-99-bad.json", "{\"message_id\": \"held-bad\", not json");
            await().atMost(Duration.ofSeconds(20)).until(() -> ids(b, "held-").size() == 8 && ids(c, "held-").size() == 8);
            await().atMost(Duration.ofSeconds(30)).until(() -> service.deadLetterCount() - lettersBefore == 1);
            assertThat(rejected() - rejectedBefore).isEqualTo(1.0);
            assertThat(service.inbox().resolve("held-99-bad.json")).as("a has not read it yet").exists();
        } finally {
            a.failing(path -> false);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "held-").size() == 8
                && Files.exists(service.done().resolve("held-99-bad.json")));
        assertThat(service.deadLetterCount() - lettersBefore).as("not again when a reads it").isEqualTo(1);
        assertThat(rejected() - rejectedBefore).isEqualTo(1.0);
    }

    private static double rejected() throws Exception {
        Double value = MetricsScrape.of(service).value("liveodds_messages_rejected_total");
        return value == null ? 0 : value;
    }

    private static String id(LoopbackPartner.Arrival arrival) {
        return arrival.messageId() == null ? "" : arrival.messageId();
    }

    private static List<String> ids(LoopbackPartner partner, String prefix) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat() && id(r).startsWith(prefix)).map(LoopbackPartner.Arrival::messageId)
                .distinct().toList();
    }

    private static List<String> delivered(LoopbackPartner partner, String prefix) {
        return partner.arrivals().stream().filter(r -> r.status() == 202 && id(r).startsWith(prefix))
                .map(LoopbackPartner.Arrival::messageId).distinct().toList();
    }
}
