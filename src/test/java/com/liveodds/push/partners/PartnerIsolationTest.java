package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three partners with different bookings from one deployment (contract 16, "Isolation" and "Booking"): while partner
 * down answers 503 to everything and partner slow takes 400 ms per push, partner fast gets all its pushes, in order, and
 * its heartbeats; down then gets everything it missed, in order. Then the booking files are edited while the service
 * runs: a match booked gets its messages from then on, a match unbooked gets nothing more, its queued pushes included,
 * and no more heartbeats. How fast fast is meanwhile is the bench's to measure.
 */
class PartnerIsolationTest {

    private static final long A = 701, B = 702, C = 703, IDLE_FAST = 704, SLOW_ONLY = 705, IDLE_SLOW = 706;
    private final List<String> dropped = new java.util.concurrent.CopyOnWriteArrayList<>();
    private int sequence;

    @Test
    void aDownAndASlowPartnerLeaveTheFastOneUnhinderedAndBookingsChangeWhileRunning(@TempDir Path work) throws Exception {
        Path fastBooking = work.resolve("fast.booking");
        Path slowBooking = work.resolve("slow.booking");
        book(fastBooking, A, B, C, IDLE_FAST);
        book(slowBooking, A, B, SLOW_ONLY, IDLE_SLOW);
        try (LoopbackPartner fast = new LoopbackPartner();
             LoopbackPartner down = new LoopbackPartner().failing(path -> true);
             LoopbackPartner slow = new LoopbackPartner().latency(400);
             RunningService service = RunningService.builder()
                     .partner("fast", "1", fast.baseUrl(), fast.authUrl())
                     .partner("down", "2", down.baseUrl(), down.authUrl())
                     .partner("slow", "3", slow.baseUrl(), slow.authUrl())
                     .set("liveodds.partners.fast.booking", fastBooking.toString())
                     .set("liveodds.partners.slow.booking", slowBooking.toString())
                     .set("liveodds.heartbeat.interval", "1s")
                     .set("liveodds.delivery.backoff.max", "1s")
                     .work(work)
                     .start()) {
            // two idle matches, one per partner that books it (they also warm the service up: tokens, connections), then
            // a burst on the busy ones: about 38 pushes per match for slow, 15 s at least at 400 ms each, one at a time
            String warmUp = drop(service, IDLE_FAST);
            drop(service, IDLE_SLOW);
            await().atMost(Duration.ofSeconds(20)).until(() -> ids(fast, IDLE_FAST).contains(warmUp));
            long burstStart = System.nanoTime();
            long[] busy = {A, B, C, SLOW_ONLY};
            for (int i = 0; i < 150; i++) {
                drop(service, busy[i % busy.length]);
            }
            int fastsShare = dropped(A, B, C, IDLE_FAST);
            int slowsShare = dropped(A, B, SLOW_ONLY, IDLE_SLOW);
            await("all of fast's pushes").atMost(Duration.ofSeconds(60)).until(() -> pushes(fast, m -> true).size() == fastsShare);
            await("fast's heartbeats of its idle match").atMost(Duration.ofSeconds(30))
                    .until(() -> heartbeatTimes(fast, IDLE_FAST).stream().filter(t -> t >= burstStart).count() >= 2);
            assertThat(pushes(slow, m -> true)).as("slow, still behind meanwhile").hasSizeLessThan(slowsShare);
            assertThat(pushes(down, m -> true)).as("down, still refusing meanwhile").isEmpty();
            assertInOrderPerMatch(fast);
            assertThat(pushes(fast, m -> m.equals("match:" + SLOW_ONLY) || m.equals("match:" + IDLE_SLOW))).as("not booked").isEmpty();
            assertThat(service.inbox().toFile().list((dir, name) -> name.endsWith(".json"))).as("files down has not taken yet")
                    .isNotEmpty();

            // down is back: it gets every message, in order per match, and every file is done
            down.failing(path -> false);
            await().atMost(Duration.ofSeconds(90)).until(() -> inboxEmpty(service));
            for (LoopbackPartner partner : List.of(fast, down, slow)) {
                assertInOrderPerMatch(partner);
            }
            assertThat(pushes(down, m -> true)).hasSize(dropped.size());
            assertThat(pushes(slow, m -> true)).hasSize(dropped(A, B, SLOW_ONLY, IDLE_SLOW));

            // bookings edited while running: fast books SLOW_ONLY; slow drops B while ten pushes of B wait for it
            List<String> laterB = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                laterB.add(drop(service, B));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> ids(slow, B).contains(laterB.get(0)));
            book(slowBooking, A, SLOW_ONLY, IDLE_SLOW);
            book(fastBooking, A, B, C, IDLE_FAST, SLOW_ONLY);
            await().atMost(Duration.ofSeconds(20)).until(() -> inboxEmpty(service));
            assertThat(ids(down, B)).as("down still books every match").containsAll(laterB);
            assertThat(ids(fast, B)).containsAll(laterB);
            List<String> slowGot = ids(slow, B).stream().filter(laterB::contains).toList();
            assertThat(slowGot).as("slow's queued pushes of B, acknowledged as not booked").hasSizeLessThan(laterB.size())
                    .isEqualTo(laterB.subList(0, slowGot.size()));

            // fast gets SLOW_ONLY from the moment its booking is read again
            List<String> probes = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(300)).until(() -> {
                probes.add(drop(service, SLOW_ONLY));
                return !ids(fast, SLOW_ONLY).isEmpty();
            });
            List<String> after = List.of(drop(service, SLOW_ONLY), drop(service, SLOW_ONLY), drop(service, SLOW_ONLY));
            String noLongerB = drop(service, B);
            await().atMost(Duration.ofSeconds(60)).until(() -> ids(fast, SLOW_ONLY).containsAll(after) && inboxEmpty(service));
            assertThat(ids(slow, SLOW_ONLY)).containsAll(after).containsAll(probes);
            assertThat(ids(slow, B)).doesNotContain(noLongerB);

            // and slow's heartbeats for B have stopped: none while its idle match gets three
            long beatsOfB = heartbeatTimes(slow, B).size();
            long idleBeats = heartbeatTimes(slow, IDLE_SLOW).size();
            await().atMost(Duration.ofSeconds(20)).until(() -> heartbeatTimes(slow, IDLE_SLOW).size() >= idleBeats + 3);
            assertThat(heartbeatTimes(slow, B)).hasSize((int) beatsOfB);
        }
    }

    /** Drops one odds message for the match; returns its message id. */
    private String drop(RunningService service, long match) {
        String id = String.format("m%05d-%d", ++sequence, match);
        dropped.add(id);
        service.drop(id + ".json", Messages.odds(id, Messages.external(Long.toString(match), match)));
        return id;
    }

    /** How many messages were dropped for these matches. */
    private int dropped(long... matches) {
        return (int) dropped.stream()
                .filter(id -> java.util.Arrays.stream(matches).anyMatch(m -> id.endsWith("-" + m))).count();
    }

    /** Writes a booking file whole (a reader never sees half of it). */
    private static void book(Path file, long... matches) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(tmp, "# booked matches\n" + java.util.Arrays.stream(matches).mapToObj(m -> "match:" + m)
                .collect(Collectors.joining("\n")) + "\n");
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static boolean inboxEmpty(RunningService service) {
        String[] left = service.inbox().toFile().list((dir, name) -> name.endsWith(".json") && !name.startsWith("."));
        return left != null && left.length == 0;
    }

    /** The pushes the partner took (2xx), first arrival of each message, of the matches chosen. */
    private static List<LoopbackPartner.Arrival> pushes(LoopbackPartner partner, Predicate<String> match) {
        Map<String, LoopbackPartner.Arrival> first = new java.util.LinkedHashMap<>();
        partner.arrivals().stream().filter(r -> !r.isHeartbeat() && r.status() == 202 && match.test(r.matchId()))
                .forEach(r -> first.putIfAbsent(r.messageId(), r));
        return new ArrayList<>(first.values());
    }

    private static List<String> ids(LoopbackPartner partner, long match) {
        return pushes(partner, m -> m.equals("match:" + match)).stream().map(LoopbackPartner.Arrival::messageId).toList();
    }

    private static List<Long> heartbeatTimes(LoopbackPartner partner, long match) {
        return partner.arrivals().stream().filter(r -> r.isHeartbeat() && r.matchId().equals("match:" + match))
                .map(LoopbackPartner.Arrival::atNanos).sorted().toList();
    }

    /** Message ids carry their drop order: each match's pushes (first 2xx of each) arrived in that order. */
    private static void assertInOrderPerMatch(LoopbackPartner partner) {
        Map<String, List<String>> byMatch = pushes(partner, m -> true).stream().collect(Collectors.groupingBy(
                LoopbackPartner.Arrival::matchId, Collectors.mapping(LoopbackPartner.Arrival::messageId, Collectors.toList())));
        byMatch.forEach((match, ids) -> assertThat(ids).as("order of %s", match).isSorted());
    }
}
