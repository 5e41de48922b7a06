package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file source with three partners reads, validates and resolves each message once for all of them (contract 16,
 * 23), as Camel's own route metrics show an operator: the ingest route runs once per file, not once per partner, and a
 * partner that is down, its queues full, holds neither that reading nor the other partners, who get every file in
 * order; its backlog is read again, for it alone, once it has room.
 */
class FileSourceOneReadingTest {

    /** Camel's counter of the exchanges a route ran, as /observe/metrics serves it with the route policy on. */
    private static final Pattern INGEST_RUNS = Pattern.compile(
            "(?m)^camel_exchanges_total\\{[^}]*routeId=\"liveodds-ingest\"[^}]*\\}\\s+(\\S+)");

    @TempDir
    Path work;

    @Test
    void eachFileIsReadOnceForEveryPartnerThatTakesItAndAPartnerThatIsDownHoldsNoOther() throws Exception {
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner(); LoopbackPartner c = new LoopbackPartner()) {
            b.failing(path -> true);
            try (RunningService service = RunningService.builder()
                    .partner("a", "101", a.baseUrl(), a.authUrl())
                    .partner("b", "202", b.baseUrl(), b.authUrl())
                    .partner("c", "303", c.baseUrl(), c.authUrl())
                    // each partner's queues take 10 pushes: b, down, takes the first 10 files, its backlog waits in the inbox
                    .set("liveodds.delivery.queue-size", "30")
                    .set("liveodds.delivery.backoff.initial", "50ms")
                    .set("liveodds.delivery.backoff.max", "200ms")
                    // no heartbeat takes a place in b's full queues meanwhile (its queue would refuse the file it
                    // has room for, which then comes to it again, read once more)
                    .set("liveodds.heartbeat.interval", "1h")
                    .set("camel.metrics.enableRoutePolicy", "true")
                    .work(work)
                    .start()) {
                List<String> sent = IntStream.range(0, 12).mapToObj(i -> String.format("once-%02d", i)).toList();
                for (String id : sent) {
                    service.drop(id + ".json", Messages.odds(id, Messages.external("o901", 901)));
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> delivered(a).size() == sent.size() && delivered(c).size() == sent.size());
                assertThat(delivered(a)).containsExactlyElementsOf(sent);
                assertThat(delivered(c)).containsExactlyElementsOf(sent);
                await().atMost(Duration.ofSeconds(10)).until(() -> b.arrivals().stream().anyMatch(r -> "once-00".equals(r.messageId())));
                // a and c kept pace and took each file with the same reading, b the first 10 too
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> ingestRuns(service) == sent.size());

                b.failing(path -> false);
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(b).size() == sent.size());
                assertThat(delivered(b)).containsExactlyElementsOf(sent);
                // read again for b alone, the 2 files it had no room for
                await().atMost(Duration.ofSeconds(5)).until(() -> ingestRuns(service) == sent.size() + 2);
                assertThat(delivered(a)).as("a was not given its files again").hasSize(sent.size());
            }
        }
    }

    private static double ingestRuns(RunningService service) throws Exception {
        Matcher m = INGEST_RUNS.matcher(service.management("/observe/metrics").body());
        double runs = 0;
        while (m.find()) {
            runs += Double.parseDouble(m.group(1));
        }
        return runs;
    }

    /** The messages the partner accepted, in the order it first accepted each. */
    private static List<String> delivered(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> r.status() == 202 && r.messageId() != null && r.messageId().startsWith("once-"))
                .map(LoopbackPartner.Arrival::messageId).distinct().toList();
    }
}
