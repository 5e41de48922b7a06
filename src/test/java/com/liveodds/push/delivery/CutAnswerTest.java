package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import com.liveodds.push.ops.Meters;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RawPartner;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partner answer cut short (contract 10): a 2xx whose body is still dribbling at liveodds.delivery.timeout is a
 * time-out, retried by the back-off rule and dead-lettered once the budget is spent, never a delivery; so is a token
 * answer; a 2xx whose body goes past the 64 KiB the service reads (and comes in full, in time) is a delivery. The
 * service runs whole against a raw-socket partner on 127.0.0.1.
 */
class CutAnswerTest {

    private static final String TOKEN = "{\"access_token\":\"tok-1\",\"token_type\":\"Bearer\",\"expires_in\":3600}";

    @TempDir
    Path work;

    /** The token endpoint answers properly; each push is answered by {@code push}. */
    private static RawPartner partner(RawPartner.Behaviour push) {
        return partner(RawPartner.json(200, TOKEN), push);
    }

    private static RawPartner partner(RawPartner.Behaviour token, RawPartner.Behaviour push) {
        return new RawPartner((request, socket, out) -> request.path().endsWith("/oauth/token")
                ? token.answer(request, socket, out)
                : push.answer(request, socket, out));
    }

    /**
     * The first {@code times} requests get {@code status} with {@code Content-Length: 100000} and a body dribbled a few
     * bytes a second until the service drops the connection ({@code cut} then counts it); the later ones get
     * {@code then}.
     */
    private static RawPartner.Behaviour dribbling(int times, int status, AtomicInteger cut, RawPartner.Behaviour then) {
        AtomicInteger requests = new AtomicInteger();
        return (request, socket, out) -> {
            if (requests.incrementAndGet() > times) {
                return then.answer(request, socket, out);
            }
            write(out, "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n");
            try {
                for (int i = 0; i < 100_000; i++) {
                    out.write('x');
                    out.flush();
                    Thread.sleep(300); // the partner under test dribbles its body, a few bytes a second
                }
            } catch (IOException clientWentAway) {
                cut.incrementAndGet();
            }
            return false;
        };
    }

    private RunningService service(RawPartner partner, String budget) {
        return RunningService.builder().partner(partner.baseUrl(), partner.baseUrl())
                .work(work)
                .set("liveodds.delivery.timeout", "1s")
                .set("liveodds.delivery.max-elapsed", budget)
                .set("liveodds.delivery.backoff.initial", "100ms")
                .set("liveodds.delivery.backoff.max", "100ms")
                .start();
    }

    private static long pushes(RawPartner partner) {
        return partner.requests().stream().filter(r -> r.path().endsWith("/odds")).count();
    }

    @Test
    void a2xxWhoseBodyIsStillComingAtTheTimeOutIsATimeOutAndThePushIsTriedAgain() throws Exception {
        AtomicInteger cut = new AtomicInteger();
        try (RawPartner partner = partner(dribbling(1, 202, cut, RawPartner.status(202)));
             RunningService service = service(partner, "10m")) {
            service.drop("m-1.json", Messages.odds("m-1", Messages.external("f1", 7101)));

            await().atMost(Duration.ofSeconds(30)).until(() -> isDone(service, "m-1.json"));
            await("the dribbled answer cut off").atMost(Duration.ofSeconds(5)).until(() -> cut.get() == 1);
            assertThat(pushes(partner)).as("pushed again after the cut answer").isEqualTo(2);
            assertThat(partner.requests()).filteredOn(r -> r.path().endsWith("/odds"))
                    .extracting(r -> r.header("Idempotency-Key")).containsOnly("m-1");
            var registry = Meters.registry(service.context());
            assertThat(registry.counter("liveodds.pushes.retried").count()).isEqualTo(1);
            assertThat(registry.get("liveodds.push.attempt").tag("outcome", "timeout").timer().count()).isEqualTo(1);
            assertThat(registry.get("liveodds.push.attempt").tag("outcome", "2xx").timer().count()).isEqualTo(1);
            assertThat(service.deadLetterCount()).isZero();
        }
    }

    @Test
    void aPushWhoseAnswersAreAlwaysCutIsDeadLetteredOnceTheBudgetIsSpent() throws Exception {
        AtomicInteger cut = new AtomicInteger();
        try (RawPartner partner = partner(dribbling(Integer.MAX_VALUE, 202, cut, null));
             RunningService service = service(partner, "2500ms")) {
            service.drop("m-3.json", Messages.odds("m-3", Messages.external("f3", 7103)));

            await().atMost(Duration.ofSeconds(30)).until(() -> isDone(service, "m-3.json"));
            assertThat(service.deadLetterCount()).as("dead-lettered, not delivered").isEqualTo(1);
            assertThat(service.deadLetterEntries()).singleElement().satisfies(letter -> {
                assertThat(letter.path("message_id").asText()).isEqualTo("m-3");
                assertThat(letter.path("attempts").asInt()).isGreaterThan(1).isEqualTo((int) pushes(partner));
                assertThat(letter.path("last_error").asText()).contains("liveodds.delivery.timeout");
            });
            assertThat(Meters.registry(service.context()).counter("liveodds.pushes.delivered").count()).isZero();
        }
    }

    @Test
    void aTokenAnswerStillComingAtTheTimeOutIsATimeOutAndTheTokenIsAskedForAgain() throws Exception {
        AtomicInteger cut = new AtomicInteger();
        try (RawPartner partner = partner(dribbling(1, 200, cut, RawPartner.json(200, TOKEN)), RawPartner.status(202));
             RunningService service = service(partner, "10m")) {
            service.drop("m-4.json", Messages.odds("m-4", Messages.external("f4", 7104)));

            await().atMost(Duration.ofSeconds(30)).until(() -> isDone(service, "m-4.json"));
            await("the dribbled token answer cut off").atMost(Duration.ofSeconds(5)).until(() -> cut.get() == 1);
            assertThat(partner.requests()).filteredOn(r -> r.path().endsWith("/oauth/token")).hasSize(2);
            assertThat(partner.requests()).filteredOn(r -> r.path().endsWith("/odds")).singleElement()
                    .satisfies(push -> assertThat(push.header("Authorization")).isEqualTo("Bearer tok-1"));
            assertThat(Meters.registry(service.context()).counter("liveodds.pushes.delivered").count()).isEqualTo(1);
            assertThat(service.deadLetterCount()).isZero();
        }
    }

    @Test
    void a2xxWhoseBodyComesInFullBeyondTheReadLimitIsDelivered() throws Exception {
        byte[] body = new byte[1024 * 1024];
        Arrays.fill(body, (byte) 'x');
        try (RawPartner partner = partner((request, socket, out) -> {
            write(out, "HTTP/1.1 202 Accepted\r\nContent-Length: " + body.length + "\r\n\r\n");
            try {
                out.write(body);
                out.flush();
            } catch (IOException clientWentAway) {
                // the service reads 64 KiB and drops the connection: expected
            }
            return false;
        });
             RunningService service = service(partner, "10m")) {
            service.drop("m-2.json", Messages.odds("m-2", Messages.external("f2", 7102)));

            await().atMost(Duration.ofSeconds(30)).until(() -> isDone(service, "m-2.json"));
            assertThat(pushes(partner)).as("delivered at the first attempt").isEqualTo(1);
            var registry = Meters.registry(service.context());
            assertThat(registry.counter("liveodds.pushes.delivered").count()).isEqualTo(1);
            assertThat(registry.counter("liveodds.pushes.retried").count()).isZero();
            assertThat(service.deadLetterCount()).isZero();
        }
    }

    private static void write(OutputStream out, String head) throws IOException {
        out.write(head.getBytes(StandardCharsets.ISO_8859_1));
    }

    private static boolean isDone(RunningService service, String file) {
        return Files.exists(service.done().resolve(file));
    }
}
