package com.liveodds.push.partner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.liveodds.push.support.RawPartner;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The partner connection against partners on 127.0.0.1 that misbehave precisely (raw sockets). */
class PartnerClientTest {

    private static final Duration TIMEOUT = Duration.ofMillis(800);
    private static final byte[] BODY = "{\"message_id\":\"m-1\"}".getBytes(StandardCharsets.UTF_8);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final PartnerHealth health = new PartnerHealth();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private RawPartner partner(RawPartner.Behaviour behaviour) {
        RawPartner partner = new RawPartner(behaviour);
        open.add(partner);
        return partner;
    }

    private PartnerClient client(String baseUrl, int maxInFlight) {
        PartnerClient client = new PartnerClient(baseUrl, TIMEOUT, maxInFlight, new PartnerTls(), health);
        client.setMeterRegistry(meters);
        open.add(client::stop);
        return client;
    }

    private static PartnerAnswer push(PartnerClient client) {
        return client.post("v1/liveodds/42/match:1/odds", "Bearer tok-1", "m-1", BODY).join();
    }

    /** One push and how long the attempt took, as the caller saw it. */
    private record Timed(PartnerAnswer answer, long millis) {
    }

    private static Timed timedPush(PartnerClient client) {
        long started = System.nanoTime();
        PartnerAnswer answer = push(client);
        return new Timed(answer, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private long attempts(String outcome) {
        var timer = meters.find("liveodds.push.attempt").tag("outcome", outcome).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void sendsExactlyTheContractHeadersToThePathJoinedWithOneSlash() {
        RawPartner partner = partner(RawPartner.status(202));
        PartnerClient client = client(partner.baseUrl() + "/partner/", 4);

        PartnerAnswer answer = client.post("/v1/liveodds/42/match:7/odds", "Bearer tok-1", "m-7", BODY).join();

        assertThat(answer.status()).isEqualTo(202);
        assertThat(answer.isSuccess()).isTrue();
        RawPartner.Request request = partner.requests().get(0);
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/partner/v1/liveodds/42/match:7/odds");
        assertThat(request.header("Authorization")).isEqualTo("Bearer tok-1");
        assertThat(request.header("Content-Type")).isEqualTo("application/json");
        assertThat(request.header("Idempotency-Key")).isEqualTo("m-7");
        assertThat(request.body()).isEqualTo(BODY);
        assertThat(request.headers()).extracting(h -> h.substring(0, h.indexOf(':')).toLowerCase())
                .containsExactlyInAnyOrder("authorization", "content-type", "idempotency-key", "content-length", "host", "user-agent");
        assertThat(attempts("2xx")).isEqualTo(1);
    }

    @Test
    void aStalledPartnerIsCutOffAtTheTimeOutAndTheConnectionDropped() {
        AtomicBoolean dropped = new AtomicBoolean();
        RawPartner partner = partner((request, socket, out) -> {
            // never answers; notices when the client closes the connection
            if (socket.getInputStream().read() < 0) {
                dropped.set(true);
            }
            return false;
        });
        PartnerClient client = client(partner.baseUrl(), 4);

        Timed timed = timedPush(client);
        PartnerAnswer answer = timed.answer();
        long tookMs = timed.millis();

        assertThat(answer.status()).isZero();
        assertThat(answer.timedOut()).isTrue();
        assertThat(answer.outcome()).isEqualTo("timeout");
        assertThat(answer.error()).contains("800 ms");
        assertThat(tookMs).isBetween(TIMEOUT.toMillis(), TIMEOUT.toMillis() + 300);
        await().atMost(Duration.ofSeconds(2)).untilTrue(dropped);
        assertThat(attempts("timeout")).isEqualTo(1);
        assertThat(partner.requests()).hasSize(1);
    }

    @Test
    void aBodyDribbledAfterTheHeadersIsCutOffAtTheTimeOut() {
        AtomicBoolean dropped = new AtomicBoolean();
        RawPartner partner = partner((request, socket, out) -> {
            out.write("HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            try {
                for (int i = 0; i < 1000; i++) {
                    out.write('x');
                    out.flush();
                    Thread.sleep(200); // the partner under test dribbles its body
                }
            } catch (IOException clientWentAway) {
                dropped.set(true);
            }
            return false;
        });
        PartnerClient client = client(partner.baseUrl(), 4);

        Timed timed = timedPush(client);
        PartnerAnswer answer = timed.answer();
        long tookMs = timed.millis();

        assertThat(answer.timedOut()).as("headers came, the body did not: a time-out").isTrue();
        assertThat(answer.status()).isZero();
        assertThat(tookMs).isBetween(TIMEOUT.toMillis(), TIMEOUT.toMillis() + 300);
        await().atMost(Duration.ofSeconds(3)).untilTrue(dropped);
        assertThat(attempts("timeout")).isEqualTo(1);
    }

    @Test
    void aHugeAnswerIsReadTo64KiBAndKeptTo4KiB() {
        long huge = 600L * 1024 * 1024;
        AtomicLong written = new AtomicLong();
        AtomicBoolean dropped = new AtomicBoolean();
        RawPartner partner = partner((request, socket, out) -> {
            out.write(("HTTP/1.1 500 Oops\r\nContent-Length: " + huge + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            byte[] chunk = new byte[64 * 1024];
            Arrays.fill(chunk, (byte) 'e');
            try {
                while (written.get() < huge) {
                    out.write(chunk);
                    written.addAndGet(chunk.length);
                }
            } catch (IOException clientWentAway) {
                dropped.set(true);
            }
            return false;
        });
        PartnerClient client = client(partner.baseUrl(), 4);

        Timed timed = timedPush(client);
        PartnerAnswer answer = timed.answer();
        long tookMs = timed.millis();

        assertThat(answer.status()).isEqualTo(500);
        assertThat(answer.body()).hasSize(PartnerClient.KEPT).matches("e+");
        assertThat(tookMs).as("not drained").isLessThan(TIMEOUT.toMillis());
        await().atMost(Duration.ofSeconds(3)).untilTrue(dropped);
        // what the partner managed to write before the connection closed: socket buffers, not 600 MB
        assertThat(written.get()).isLessThan(32L * 1024 * 1024);
        assertThat(attempts("5xx")).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 307, 308})
    void aRedirectIsNotFollowedAndItsLocationComesBack(int status) {
        RawPartner target = partner(RawPartner.status(202));
        String location = target.baseUrl() + "/elsewhere";
        RawPartner partner = partner(RawPartner.status(status, "Location: " + location));
        PartnerClient client = client(partner.baseUrl(), 4);

        PartnerAnswer answer = push(client);

        assertThat(answer.status()).isEqualTo(status);
        assertThat(answer.location()).isEqualTo(location);
        assertThat(partner.requests()).hasSize(1);
        assertThat(target.requests()).as("the redirect target never hears of it").isEmpty();
        assertThat(target.connections()).isZero();
    }

    @Test
    void a503WithRetryAfterIsOneRequest() {
        RawPartner partner = partner(RawPartner.status(503, "Retry-After: 1"));
        PartnerClient client = client(partner.baseUrl(), 4);

        PartnerAnswer answer = push(client);

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.retryAfter()).isEqualTo("1");
        // anything the client resent by itself would arrive within the time-out
        await().pollDelay(TIMEOUT).atMost(TIMEOUT.multipliedBy(2)).until(() -> true);
        assertThat(partner.requests()).hasSize(1);
    }

    @Test
    void aConnectionResetIsOneRequestAndAnErrorAnswer() {
        RawPartner partner = partner((request, socket, out) -> {
            socket.setSoLinger(true, 0);
            socket.close();
            return false;
        });
        PartnerClient client = client(partner.baseUrl(), 4);

        PartnerAnswer answer = push(client);

        assertThat(answer.status()).isZero();
        assertThat(answer.timedOut()).isFalse();
        assertThat(answer.outcome()).isEqualTo("error");
        assertThat(answer.error()).isNotBlank();
        await().pollDelay(TIMEOUT).atMost(TIMEOUT.multipliedBy(2)).until(() -> true);
        assertThat(partner.requests()).hasSize(1);
        assertThat(attempts("error")).isEqualTo(1);
    }

    @Test
    void aRefusedConnectionIsAnErrorAnswerNotAnException() {
        RawPartner partner = partner(RawPartner.status(202));
        String url = partner.baseUrl();
        partner.close();
        PartnerAnswer answer = push(client(url, 4));
        assertThat(answer.status()).isZero();
        assertThat(answer.error()).startsWith("cannot connect");
    }

    @Test
    void atMostMaxInFlightAreOnTheWireAndTheRestWaitWithoutAThread() {
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        RawPartner partner = partner((request, socket, out) -> {
            peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            release.await(10, TimeUnit.SECONDS);
            concurrent.decrementAndGet();
            return RawPartner.status(202).answer(request, socket, out);
        });
        PartnerClient client = new PartnerClient(partner.baseUrl(), Duration.ofSeconds(20), 8, new PartnerTls(), health);
        open.add(client::stop);
        int threadsBefore = Thread.activeCount();

        List<CompletableFuture<PartnerAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            answers.add(client.post("v1/liveodds/42/match:" + i + "/odds", "Bearer t", "m-" + i, BODY));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> concurrent.get() == 8);
        // 992 pushes wait: they hold no thread (the partner's 8 handler threads and the client's few are all there is)
        assertThat(Thread.activeCount() - threadsBefore).isLessThan(40);
        release.countDown();

        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();
        assertThat(answers).allMatch(a -> a.join().status() == 202);
        assertThat(peak.get()).isEqualTo(8);
        assertThat(partner.requests()).hasSize(1000);
        assertThat(partner.connections()).as("connections are reused").isLessThanOrEqualTo(8);
    }

    @Test
    void slowAnswersKeepToMaxInFlight() {
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        RawPartner partner = partner((request, socket, out) -> {
            peak.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
            Thread.sleep(200); // the slow partner under test
            concurrent.decrementAndGet();
            return RawPartner.status(202).answer(request, socket, out);
        });
        PartnerClient client = client(partner.baseUrl(), 8);

        List<CompletableFuture<PartnerAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            answers.add(client.post("v1/liveodds/42/match:" + i + "/odds", "Bearer t", "m-" + i, BODY));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();

        assertThat(answers).allMatch(a -> a.join().status() == 202);
        assertThat(peak.get()).isEqualTo(8);
        assertThat(attempts("2xx")).isEqualTo(32);
    }

    @Test
    void stoppingWithThousandsWaitingAnswersEveryOneOfThem() {
        CountDownLatch release = new CountDownLatch(1);
        RawPartner partner = partner((request, socket, out) -> {
            release.await(10, TimeUnit.SECONDS);
            return RawPartner.status(202).answer(request, socket, out);
        });
        PartnerClient client = new PartnerClient(partner.baseUrl(), Duration.ofSeconds(20), 1, new PartnerTls(), health);
        List<CompletableFuture<PartnerAnswer>> answers = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            answers.add(client.post("v1/liveodds/42/match:" + i + "/odds", "Bearer t", "m-" + i, BODY));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> partner.requests().size() == 1);

        client.stop();
        release.countDown();

        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).orTimeout(10, TimeUnit.SECONDS).join();
        assertThat(answers.get(0).join().status()).as("the one on the wire finishes").isEqualTo(202);
        assertThat(answers.subList(1, 5000)).allMatch(a -> "partner client stopped".equals(a.join().error()));
        assertThat(partner.requests()).hasSize(1);
    }

    @Test
    void everyOutcomeReachesTheReadinessCheck() {
        RawPartner failing = partner(RawPartner.status(503));
        push(client(failing.baseUrl(), 4));
        assertThat(health.partner().lastError()).isEqualTo("HTTP 503");
        assertThat(health.partner().lastSuccess()).isNull();

        RawPartner fine = partner(RawPartner.status(202));
        push(client(fine.baseUrl(), 4));
        assertThat(health.partner().lastSuccess()).isNotNull();
        assertThat(health.isUp()).isTrue();
    }
}
