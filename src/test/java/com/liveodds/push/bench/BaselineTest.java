package com.liveodds.push.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import com.liveodds.push.support.RawPartner;
import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The baselines the bench divides by, raw and camel-http: they must keep the service's rules, or their figures compare
 * nothing.
 */
class BaselineTest {

    /** Both clients on the same partner; the camel-http one's context closed after. */
    private static void withWire(Baseline.Client client, String baseUrl, WireUse use) throws Exception {
        try (CamelHttpClient camel = client == Baseline.Client.CAMEL_HTTP ? new CamelHttpClient(4) : null) {
            use.run(camel == null ? Baseline.plain(baseUrl) : camel.to(baseUrl));
        }
    }

    private interface WireUse {
        void run(Baseline.Wire wire) throws Exception;
    }

    @ParameterizedTest
    @EnumSource(Baseline.Client.class)
    void pushesEveryMessageInMatchOrderWithThePartnersTokenToTheBenchPartner(Baseline.Client client) throws Exception {
        Load load = new Load("rb", 90, 3);
        LongAdder delivered = new LongAdder();
        try (BenchPartner partner = BenchPartner.start()) {
            Arrivals arrivals = partner.record(load, 0);
            withWire(client, partner.baseUrl(), wire -> {
                try (Baseline baseline = new Baseline(partner.identity, partner.baseUrl(), partner.authUrl(), wire, delivered::increment)) {
                    for (int i = 0; i < load.size; i++) {
                        baseline.push(load, i);
                    }
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.sum() == load.size);
                }
            });
            assertThat(arrivals.delivered()).isEqualTo(load.size);
            assertThat(arrivals.verdict(Set.of())).isEmpty();
            assertThat(partner.tokenRequests()).isEqualTo(1);
            assertThat(partner.unauthorized()).isZero();
        }
    }

    /** The warm-up's match m and the measured load's share a thread: the warm-up's pushes come first, the load's in order after. */
    @Test
    void aWarmUpIsRecordedApartOnMatchesOfItsOwn() throws Exception {
        Load load = new Load("wu", 30, 3);
        Load warmUp = load.warmUp(128);
        LongAdder delivered = new LongAdder();
        try (BenchPartner partner = BenchPartner.start()) {
            Arrivals measured = partner.record(load, 0);
            Arrivals warm = partner.recordWarmUp(warmUp);
            try (Baseline baseline = new Baseline(partner.identity, partner.baseUrl(), partner.authUrl(), Baseline.plain(partner.baseUrl()),
                    delivered::increment)) {
                for (int i = 0; i < warmUp.size; i++) {
                    baseline.push(warmUp, i);
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.sum() == warmUp.size);
                assertThat(measured.delivered()).isZero();
                for (int i = 0; i < load.size; i++) {
                    baseline.push(load, i);
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.sum() == warmUp.size + load.size);
            }
            assertThat(warm.delivered()).isEqualTo(warmUp.size);
            assertThat(measured.delivered()).isEqualTo(load.size);
            assertThat(warm.verdict(Set.of())).isEmpty();
            assertThat(measured.verdict(Set.of())).isEmpty();
            assertThat(measured.strays.sum()).isZero();
            assertThat(warmUp.matchId(0)).isNotIn(load.matchId(0), load.matchId(1), load.matchId(2));
        }
    }

    @ParameterizedTest
    @EnumSource(Baseline.Client.class)
    void aRefusedPushIsRetriedOnItsMatchsOwnKeptAliveConnection(Baseline.Client client) throws Exception {
        Load load = new Load("rb", 30, 3);
        String refusedKey = load.id(0);
        AtomicInteger refusals = new AtomicInteger();
        LongAdder delivered = new LongAdder();
        try (RawPartner partner = new RawPartner((request, socket, out) -> {
            if (request.path().equals("/auth/oauth/token")) {
                return RawPartner.json(200, "{\"access_token\":\"tok\",\"token_type\":\"Bearer\",\"expires_in\":3600}")
                        .answer(request, socket, out);
            }
            boolean refuse = refusedKey.equals(request.header("Idempotency-Key")) && refusals.getAndIncrement() < 2;
            return RawPartner.status(refuse ? 503 : 202).answer(request, socket, out);
        })) {
            withWire(client, partner.baseUrl(), wire -> {
                try (Baseline baseline = new Baseline(BenchPartner.Identity.SINGLE, partner.baseUrl(), partner.baseUrl() + "/auth", wire,
                        delivered::increment)) {
                    for (int i = 0; i < load.size; i++) {
                        baseline.push(load, i);
                    }
                    await().atMost(Duration.ofSeconds(30)).until(() -> delivered.sum() == load.size);
                }
            });
            // the token, then at most a connection per match for all its pushes and retries (kept alive, not one per push)
            assertThat(partner.connections()).isBetween(2, 1 + load.matches);
            String match0 = "/v1/liveodds/42/" + load.matchId(0) + "/odds";
            assertThat(partner.requests()).filteredOn(r -> r.path().equals(match0))
                    .extracting(r -> r.header("Idempotency-Key"))
                    .containsExactly(refusedKey, refusedKey, refusedKey, load.id(3), load.id(6), load.id(9), load.id(12), load.id(15),
                            load.id(18), load.id(21), load.id(24), load.id(27));
            assertThat(partner.requests()).filteredOn(r -> r.path().startsWith("/v1/"))
                    .allSatisfy(r -> {
                        assertThat(r.header("Authorization")).isEqualTo("Bearer tok");
                        assertThat(r.header("Content-Type")).isEqualTo("application/json");
                        assertThat(BenchPartner.messageId(Buffer.buffer(r.body()))).isEqualTo(r.header("Idempotency-Key"));
                    });
        }
    }
}
