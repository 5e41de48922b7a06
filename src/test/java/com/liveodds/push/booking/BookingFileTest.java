package com.liveodds.push.booking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The booking file as the one record (contract 20 and 22, "Booking stays true"), on service processes as an operator
 * runs them: two instances sharing one partner's booking file keep every one of many concurrent bookings and
 * unbookings, and a process killed with SIGKILL while bookings are answered keeps every booking it answered 200.
 */
class BookingFileTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String TOKEN = "booking-file-token";
    private static final String COMMENT = "# partner 42, kept by hand and by the API";
    /** Clients at once: within liveodds.partner.api.max-concurrent (8) at each instance. */
    private static final int CLIENTS = 8;
    /** A service process's start: two of them starting at once on a loaded machine take their time. */
    private static final Duration STARTED = Duration.ofSeconds(120);

    @TempDir
    Path work;

    @Test
    void twoInstancesSharingTheBookingFileKeepEveryConcurrentChange() throws Exception {
        Path booking = Files.writeString(work.resolve("booking.txt"), COMMENT + "\nmatch:1000\n");
        try (LoopbackPartner partner = new LoopbackPartner()) {
            List<Map<String, String>> instances = List.of(settings(partner, "one", booking), settings(partner, "two", booking));
            try (ServiceProcess one = ServiceProcess.start(instances.get(0), work.resolve("one.log"));
                    ServiceProcess two = ServiceProcess.start(instances.get(1), work.resolve("two.log"))) {
                sharing(instances, booking);
            }
        }
    }

    /** Many concurrent changes at the two instances: every one is in the file and listed by both. */
    private void sharing(List<Map<String, String>> instances, Path booking) throws Exception {
        for (Map<String, String> instance : instances) {
            await().atMost(STARTED).ignoreExceptions().until(() -> booked(instance), b -> b.contains("match:1000"));
        }

        // 100 matches booked, each at one of the two instances in turn, 8 requests at once
        List<String> first = matches(1001, 100);
        answerAllOk(instances, first.stream().map(m -> new Change("PUT", m)).toList());
        Set<String> expected = new TreeSet<>(first);
        expected.add("match:1000");
        assertThat(bookedInFile(booking)).isEqualTo(expected);
        for (Map<String, String> instance : instances) {
            await().atMost(Duration.ofSeconds(30)).until(() -> booked(instance), expected::equals);
        }

        // then every other one of them unbooked while 100 more are booked, at both instances at once
        List<Change> mixed = new ArrayList<>();
        List<String> second = matches(2001, 100);
        for (int i = 0; i < 100; i++) {
            if (i % 2 == 0) {
                mixed.add(new Change("DELETE", first.get(i)));
                expected.remove(first.get(i));
            }
            mixed.add(new Change("PUT", second.get(i)));
            expected.add(second.get(i));
        }
        answerAllOk(instances, mixed);
        assertThat(bookedInFile(booking)).isEqualTo(expected);
        for (Map<String, String> instance : instances) {
            await().atMost(Duration.ofSeconds(30)).until(() -> booked(instance), expected::equals);
        }
        assertThat(Files.readAllLines(booking)).startsWith(COMMENT);
        try (var files = Files.list(work)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.contains("booking")))
                    .as("the file and its lock file, no temporary file left")
                    .containsExactlyInAnyOrder("booking.txt", "booking.txt.lock");
        }
    }

    @Test
    void everyBookingAnsweredBeforeAKillIsKept() throws Exception {
        Path booking = Files.writeString(work.resolve("booking.txt"), COMMENT + "\n");
        List<String> matches = matches(3001, 400);
        ConcurrentLinkedQueue<String> answered = new ConcurrentLinkedQueue<>();
        try (LoopbackPartner partner = new LoopbackPartner()) {
            Map<String, String> settings = settings(partner, "service", booking);
            try (ServiceProcess first = ServiceProcess.start(settings, work.resolve("first.log"))) {
                await().atMost(STARTED).ignoreExceptions().until(() -> booked(settings), Set::isEmpty);
                ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
                try {
                    for (String match : matches) {
                        clients.submit(() -> {
                            if (call(settings, "PUT", match).statusCode() == 200) {
                                answered.add(match);
                            }
                            return null;
                        });
                    }
                    // killed while bookings are still being written and answered
                    await().atMost(Duration.ofSeconds(60)).until(() -> answered.size() >= 50);
                    first.kill();
                } finally {
                    clients.shutdownNow();
                }
            }
            Set<String> kept = Set.copyOf(answered);
            System.out.printf("booking through a kill -9: %d of %d bookings answered 200 before the kill, %d in the file%n",
                    kept.size(), matches.size(), bookedInFile(booking).size());
            assertThat(kept).hasSizeLessThan(matches.size());
            for (String line : Files.readAllLines(booking)) {
                assertThat(line).as("a whole line").matches("# .*|match:\\d+");
            }
            assertThat(bookedInFile(booking)).containsAll(kept);
            try (ServiceProcess second = ServiceProcess.start(settings, work.resolve("second.log"))) {
                Set<String> listed = await().atMost(STARTED).ignoreExceptions().until(() -> booked(settings),
                        b -> !b.isEmpty());
                assertThat(listed).containsAll(kept).isEqualTo(bookedInFile(booking));
                // the next booking after the kill goes in beside them
                assertThat(call(settings, "PUT", "match:9999").statusCode()).isEqualTo(200);
                assertThat(bookedInFile(booking)).containsAll(kept).contains("match:9999");
            }
        }
    }

    private record Change(String method, String match) {
    }

    /** Sends each change to the instances in turn, {@link #CLIENTS} at once; every answer is 200 as the change says. */
    private static void answerAllOk(List<Map<String, String>> instances, List<Change> changes) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < changes.size(); i++) {
                Map<String, String> instance = instances.get(i % instances.size());
                Change change = changes.get(i);
                answers.add(clients.submit(() -> call(instance, change.method(), change.match())));
            }
            for (int i = 0; i < changes.size(); i++) {
                HttpResponse<String> answer = answers.get(i).get();
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                assertThat(JSON.readTree(answer.body()).path("booked").asBoolean()).isEqualTo(changes.get(i).method().equals("PUT"));
            }
        } finally {
            clients.shutdownNow();
        }
    }

    private Map<String, String> settings(LoopbackPartner partner, String name, Path booking) throws Exception {
        Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(),
                Files.createDirectories(work.resolve(name)));
        settings.put("liveodds.partner.booking", booking.toString());
        settings.put("liveodds.fixtures.auth.tokens", TOKEN);
        return settings;
    }

    private static List<String> matches(int from, int count) {
        return IntStream.range(from, from + count).mapToObj(i -> "match:" + i).toList();
    }

    private static Set<String> bookedInFile(Path booking) throws Exception {
        return Files.readAllLines(booking).stream().filter(l -> l.startsWith("match:")).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> booked(Map<String, String> settings) throws Exception {
        HttpResponse<String> answer = HTTP.send(HttpRequest.newBuilder(uri(settings, "/v1/liveodds/42/booking"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        Set<String> booked = new TreeSet<>();
        JSON.readTree(answer.body()).path("matches").forEach(m -> booked.add(m.asText()));
        return booked;
    }

    private static HttpResponse<String> call(Map<String, String> settings, String method, String match) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(uri(settings, "/v1/liveodds/42/booking/" + match))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(Map<String, String> settings, String path) {
        return URI.create("http://127.0.0.1:" + settings.get("camel.server.port") + path);
    }
}
