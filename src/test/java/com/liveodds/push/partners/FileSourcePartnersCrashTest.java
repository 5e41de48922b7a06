package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service process with several partners reading one inbox, killed hard mid-stream: nothing is lost for any of them,
 * and a partner is not pushed again what it had accepted before the kill, also while another partner is down.
 */
class FileSourcePartnersCrashTest {

    @TempDir
    Path work;
    private final Map<String, LoopbackPartner> partners = new LinkedHashMap<>();

    private void partners(String... names) throws Exception {
        for (String name : names) {
            partners.put(name, new LoopbackPartner().latency(10));
        }
    }

    @Test
    void afterAHardKillWhileAPartnerIsDownTheOtherIsNotPushedAgainWhatItHadAccepted() throws Exception {
        partners("a", "b");
        LoopbackPartner a = partners.get("a");
        LoopbackPartner b = partners.get("b").failing(path -> true);
        Map<String, String> settings = settings();
        settings.put("liveodds.delivery.backoff.initial", "50ms");
        settings.put("liveodds.delivery.backoff.max", "200ms");
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        int total = 300;
        for (int i = 0; i < total; i++) {
            String id = String.format("down-%04d", i);
            long match = 4000 + i % 10;
            Files.writeString(inbox.resolve(id + ".json"), Messages.odds(id, Messages.external(Long.toString(match - 4000), match)));
        }

        long killed;
        try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"))) {
            await().atMost(Duration.ofSeconds(90)).until(() -> delivered("a").size() >= total / 3);
            first.kill();
            killed = System.nanoTime(); // the process is gone: every arrival before this is of the first run
        }
        List<LoopbackPartner.Arrival> firstRun = a.arrivals().stream().filter(r -> !r.isHeartbeat() && r.atNanos() < killed).toList();
        Set<String> accepted = firstRun.stream().filter(r -> r.status() == 202).map(LoopbackPartner.Arrival::messageId)
                .collect(Collectors.toSet());
        // one push per match at a time: of each match, only the last one a accepted can have been on the wire at the kill
        // (answered, but its end not yet recorded by the service)
        Map<String, String> onTheWire = new LinkedHashMap<>();
        firstRun.stream().filter(r -> r.status() == 202).forEach(r -> onTheWire.put(r.matchId(), r.messageId()));
        assertThat(accepted).hasSizeLessThan(total);

        try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"))) {
            // b is still down: a gets the rest of the inbox, and nothing it had accepted before the kill
            await().atMost(Duration.ofSeconds(120)).until(() -> delivered("a").size() == total);
            Set<String> pushedAgain = a.arrivals().stream().filter(r -> !r.isHeartbeat() && r.atNanos() > killed)
                    .map(LoopbackPartner.Arrival::messageId).filter(accepted::contains).collect(Collectors.toSet());
            System.out.printf("crash while b is down: a had accepted %d messages before the kill, was pushed %d of them again"
                    + " (on the wire at the kill, at most one per match: %d)%n", accepted.size(), pushedAgain.size(),
                    pushedAgain.stream().filter(onTheWire::containsValue).count());
            assertThat(pushedAgain).as("pushed to a again after the restart").isSubsetOf(onTheWire.values());
            assertThat(jsonFilesLeft(inbox)).as("the files wait in the inbox for b").isEqualTo(total);

            // b is back: it gets every message, and every file leaves the inbox
            b.failing(path -> false);
            await().atMost(Duration.ofSeconds(120)).until(() -> delivered("b").size() == total);
            await().atMost(Duration.ofSeconds(20)).until(() -> jsonFilesLeft(inbox) == 0);
            assertThat(a.arrivals().stream().filter(r -> !r.isHeartbeat() && r.atNanos() > killed)
                    .map(LoopbackPartner.Arrival::messageId).filter(accepted::contains).collect(Collectors.toSet()))
                    .as("a was not pushed again once b was back either").isSubsetOf(onTheWire.values());
        }
        assertThat(jsonFilesLeft(inbox.resolve(".done"))).isEqualTo(total);
        assertThat(Files.readString(work.resolve("second.log"))).doesNotContain("ERROR");
    }

    @AfterEach
    void tearDown() {
        partners.values().forEach(LoopbackPartner::close);
    }

    @Test
    void afterAHardKillWithThreePartnersAndARestartEveryPartnerHasEveryMessageItBooked() throws Exception {
        partners("a", "b", "c");
        Files.writeString(work.resolve("booking-b.txt"), "3000\n3001\n3002\n3003\n3004\n3005\n3006\n");
        Files.writeString(work.resolve("booking-c.txt"), "3004\n3005\n3006\n3007\n3008\n3009\n");
        Map<String, String> settings = settings();
        settings.put("liveodds.partners.b.booking", work.resolve("booking-b.txt").toString());
        settings.put("liveodds.partners.c.booking", work.resolve("booking-c.txt").toString());
        Path inbox = work.resolve("inbox");
        Files.createDirectories(inbox);
        int total = 300;
        Map<String, Long> matchOf = new LinkedHashMap<>();
        for (int i = 0; i < total; i++) {
            String id = String.format("crash-%04d", i);
            long match = 3000 + i % 10;
            matchOf.put(id, match);
            Files.writeString(inbox.resolve(id + ".json"), Messages.odds(id, Messages.external(Long.toString(match - 3000), match)));
        }
        Map<String, Set<String>> booked = Map.of(
                "a", matchOf.keySet(),
                "b", matchOf.entrySet().stream().filter(e -> e.getValue() <= 3006).map(Map.Entry::getKey).collect(Collectors.toSet()),
                "c", matchOf.entrySet().stream().filter(e -> e.getValue() >= 3004).map(Map.Entry::getKey).collect(Collectors.toSet()));

        try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"))) {
            await().atMost(Duration.ofSeconds(90)).until(() -> delivered("a").size() >= total / 4);
            first.kill();
        }
        long killed = System.nanoTime();
        assertThat(delivered("a")).hasSizeLessThan(total);
        try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"))) {
            await().atMost(Duration.ofSeconds(120)).until(() -> booked.entrySet().stream()
                    .allMatch(e -> delivered(e.getKey()).containsAll(e.getValue())));
            // acknowledged too: every file leaves the inbox once every partner that booked it has it
            await().atMost(Duration.ofSeconds(20)).until(() -> jsonFilesLeft(inbox) == 0);
        }
        for (Map.Entry<String, Set<String>> e : booked.entrySet()) {
            LoopbackPartner partner = partners.get(e.getKey());
            assertThat(delivered(e.getKey())).as("partner %s", e.getKey()).containsExactlyInAnyOrderElementsOf(e.getValue());
            // per match and per run, the input order once consecutive repeats are collapsed (the second run starts again
            // from the files still in the inbox, which another partner may have held there)
            for (boolean before : List.of(true, false)) {
                Map<String, List<String>> byMatch = partner.arrivals().stream()
                        .filter(r -> !r.isHeartbeat() && (r.atNanos() < killed) == before)
                        .collect(Collectors.groupingBy(LoopbackPartner.Arrival::matchId, LinkedHashMap::new,
                                Collectors.mapping(LoopbackPartner.Arrival::messageId, Collectors.toList())));
                byMatch.forEach((match, ids) -> assertThat(collapseRepeats(ids)).as("order of %s at %s", match, e.getKey()).isSorted());
            }
            long repeats = partner.arrivals().stream().filter(r -> !r.isHeartbeat()).count() - e.getValue().size();
            System.out.printf("crash with three partners: partner %s got %d messages, %d repeats%n", e.getKey(), e.getValue().size(), repeats);
        }
        assertThat(Files.list(inbox.resolve(".done")).count()).isEqualTo(total);
        // no partner's reading tripped over a file another one had just moved to .done/
        assertThat(Files.readString(work.resolve("second.log"))).doesNotContain("NoSuchFile").doesNotContain("ERROR");
    }

    private Map<String, String> settings() {
        LoopbackPartner a = partners.get("a");
        Map<String, String> s = ServiceProcess.settings(a.baseUrl(), a.authUrl(), work);
        s.keySet().removeIf(k -> k.startsWith("liveodds.partner."));
        s.put("liveodds.partners", String.join(",", partners.keySet()));
        int id = 100;
        for (Map.Entry<String, LoopbackPartner> p : partners.entrySet()) {
            String key = "liveodds.partners." + p.getKey() + ".";
            s.put(key + "id", Integer.toString(++id));
            s.put(key + "base-url", p.getValue().baseUrl());
            s.put(key + "auth-url", p.getValue().authUrl());
            s.put(key + "client-id", "client-" + p.getKey());
            s.put(key + "client-secret", "secret-" + p.getKey());
        }
        return s;
    }

    private Set<String> delivered(String partner) {
        return partners.get(partner).arrivals().stream().filter(r -> !r.isHeartbeat() && r.status() == 202)
                .map(LoopbackPartner.Arrival::messageId).collect(Collectors.toSet());
    }

    private static long jsonFilesLeft(Path inbox) throws Exception {
        try (Stream<Path> files = Files.list(inbox)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".json")).count();
        }
    }

    private static List<String> collapseRepeats(List<String> sequence) {
        List<String> out = new ArrayList<>();
        for (String s : sequence) {
            if (out.isEmpty() || !out.get(out.size() - 1).equals(s)) {
                out.add(s);
            }
        }
        return out;
    }
}
