package com.liveodds.push.partner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import com.liveodds.push.support.PartnerCalls;
import com.liveodds.push.support.RawPartner;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The partner connection, camel-http on the bundle's {@code liveoddsHttp} component, against partners on 127.0.0.1 that
 * misbehave precisely (raw sockets): every attempt is exactly one request, bounded in time and size.
 */
class PartnerClientTest {

    private static final Duration TIMEOUT = Duration.ofMillis(800);
    private static final byte[] BODY = "{\"message_id\":\"m-1\"}".getBytes(StandardCharsets.UTF_8);

    private final List<AutoCloseable> open = new ArrayList<>();

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

    /** The bundle's component, warmed up by one push (so that the timings below measure the attempt, not start-up). */
    private PartnerCalls client(Duration timeout) {
        PartnerCalls calls = new PartnerCalls(new PartnerTls(), timeout, 4);
        open.add(calls);
        try (RawPartner warm = new RawPartner(RawPartner.status(202))) {
            assertThat(push(calls, warm.baseUrl()).status()).isEqualTo(202);
        }
        return calls;
    }

    private static PartnerAnswer push(PartnerCalls client, String baseUrl) {
        return client.post(baseUrl + "/v1/liveodds/42/match:1/odds", "Bearer tok-1", "m-1", BODY);
    }

    /** One push and how long the attempt took, as the caller saw it. */
    private record Timed(PartnerAnswer answer, long millis) {
    }

    private static Timed timedPush(PartnerCalls client, String baseUrl) {
        long started = System.nanoTime();
        PartnerAnswer answer = push(client, baseUrl);
        return new Timed(answer, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    @Test
    void aStalledPartnerIsCutOffAtTheTimeOutAndTheConnectionDropped() {
        AtomicBoolean dropped = new AtomicBoolean();
        RawPartner partner = partner((request, socket, out) -> {
            // never answers; notices when the client drops the connection (closed or reset)
            try {
                if (socket.getInputStream().read() < 0) {
                    dropped.set(true);
                }
            } catch (IOException reset) {
                dropped.set(true);
            }
            return false;
        });
        PartnerCalls client = client(TIMEOUT);

        Timed timed = timedPush(client, partner.baseUrl());
        PartnerAnswer answer = timed.answer();
        long tookMs = timed.millis();

        assertThat(answer.status()).isZero();
        assertThat(answer.timedOut()).isTrue();
        assertThat(answer.outcome()).isEqualTo("timeout");
        assertThat(answer.error()).contains("800 ms");
        // the partner never answers: only the time-out can end the attempt, and not before it is due
        assertThat(tookMs).isGreaterThanOrEqualTo(TIMEOUT.toMillis());
        await().atMost(Duration.ofSeconds(2)).untilTrue(dropped);
        assertThat(partner.requests()).as("one attempt, one request").hasSize(1);
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
        PartnerCalls client = client(TIMEOUT);

        Timed timed = timedPush(client, partner.baseUrl());
        PartnerAnswer answer = timed.answer();
        long tookMs = timed.millis();

        assertThat(answer.timedOut()).as("headers came, the body did not: a time-out").isTrue();
        assertThat(answer.status()).isZero();
        // the body would take 200 s: a time-out per read (200 ms apart) would never fire, the whole attempt's does
        assertThat(tookMs).isGreaterThanOrEqualTo(TIMEOUT.toMillis());
        await().atMost(Duration.ofSeconds(3)).untilTrue(dropped);
        assertThat(partner.requests()).as("one attempt, one request").hasSize(1);
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
        PartnerCalls client = client(TIMEOUT);

        PartnerAnswer answer = push(client, partner.baseUrl());

        assertThat(answer.status()).as("answered, not timed out draining 600 MB").isEqualTo(500);
        assertThat(answer.body()).hasSize(PartnerAnswer.KEPT).matches("e+");
        await().atMost(Duration.ofSeconds(3)).untilTrue(dropped);
        // what the partner managed to write before the connection closed: socket buffers, not 600 MB
        assertThat(written.get()).isLessThan(32L * 1024 * 1024);
        assertThat(partner.requests()).as("one attempt, one request").hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 307, 308})
    void aRedirectIsNotFollowedAndItsLocationComesBack(int status) {
        RawPartner target = partner(RawPartner.status(202));
        String location = target.baseUrl() + "/elsewhere";
        RawPartner partner = partner(RawPartner.status(status, "Location: " + location));
        PartnerCalls client = client(TIMEOUT);

        PartnerAnswer answer = push(client, partner.baseUrl());

        assertThat(answer.status()).isEqualTo(status);
        assertThat(answer.location()).isEqualTo(location);
        assertThat(partner.requests()).hasSize(1);
        assertThat(target.requests()).as("the redirect target never hears of it").isEmpty();
        assertThat(target.connections()).isZero();
    }

    @Test
    void anEmptyAnswerHandsItsConnectionBackForTheNextPush() {
        RawPartner partner = partner(RawPartner.status(202));
        PartnerCalls client = client(TIMEOUT);

        for (int i = 0; i < 5; i++) {
            PartnerAnswer answer = push(client, partner.baseUrl());
            assertThat(answer.status()).isEqualTo(202);
            assertThat(answer.body()).isNull();
        }

        // each push found the one connection back in the pool: none was left leased with an unread body
        assertThat(partner.connections()).isEqualTo(1);
        assertThat(partner.requests()).hasSize(5);
    }

    @Test
    void a503WithRetryAfterIsOneRequest() {
        RawPartner partner = partner(RawPartner.status(503, "Retry-After: 1"));
        PartnerCalls client = client(TIMEOUT);

        PartnerAnswer answer = push(client, partner.baseUrl());

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.retryAfter()).isEqualTo("1");
        // anything the client resent by itself would arrive within the time-out
        await().during(TIMEOUT).atMost(TIMEOUT.multipliedBy(3)).until(() -> partner.requests().size() == 1);
    }

    @Test
    void aConnectionResetIsOneRequestAndAnErrorAnswer() {
        RawPartner partner = partner((request, socket, out) -> {
            socket.setSoLinger(true, 0);
            socket.close();
            return false;
        });
        PartnerCalls client = client(TIMEOUT);

        PartnerAnswer answer = push(client, partner.baseUrl());

        assertThat(answer.status()).isZero();
        assertThat(answer.timedOut()).isFalse();
        assertThat(answer.outcome()).isEqualTo("error");
        assertThat(answer.error()).isNotBlank();
        await("one attempt, one request").during(TIMEOUT).atMost(TIMEOUT.multipliedBy(3))
                .until(() -> partner.requests().size() == 1);
    }

    @Test
    void aRefusedConnectionIsAnErrorAnswerNotAnException() {
        RawPartner partner = partner(RawPartner.status(202));
        String url = partner.baseUrl();
        partner.close();
        PartnerAnswer answer = push(client(TIMEOUT), url);
        assertThat(answer.status()).isZero();
        assertThat(answer.error()).startsWith("cannot connect");
    }
}
