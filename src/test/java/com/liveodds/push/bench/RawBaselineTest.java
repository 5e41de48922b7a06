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

/** The raw baseline the bench divides by: it must keep the service's rules, or its figures compare nothing. */
class RawBaselineTest {

    @Test
    void pushesEveryMessageInMatchOrderWithThePartnersTokenToTheBenchPartner() throws Exception {
        Load load = new Load("rb", 90, 3);
        LongAdder delivered = new LongAdder();
        try (BenchPartner partner = BenchPartner.start()) {
            Arrivals arrivals = partner.record(load, 0);
            try (RawBaseline raw = new RawBaseline(partner.identity, partner.baseUrl(), partner.authUrl(), delivered::increment)) {
                for (int i = 0; i < load.size; i++) {
                    raw.push(load, i);
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.sum() == load.size);
            }
            assertThat(arrivals.delivered()).isEqualTo(load.size);
            assertThat(arrivals.verdict(Set.of())).isEmpty();
            assertThat(partner.tokenRequests()).isEqualTo(1);
            assertThat(partner.unauthorized()).isZero();
        }
    }

    @Test
    void aRefusedPushIsRetriedOnItsMatchsOwnKeptAliveConnection() throws Exception {
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
            try (RawBaseline raw = new RawBaseline(BenchPartner.Identity.SINGLE, partner.baseUrl(), partner.baseUrl() + "/auth",
                    delivered::increment)) {
                for (int i = 0; i < load.size; i++) {
                    raw.push(load, i);
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered.sum() == load.size);
            }
            // the token, then a connection per match for all its pushes and retries
            assertThat(partner.connections()).isEqualTo(1 + load.matches);
            String match0 = "/v1/liveodds/42/" + Load.matchId(0) + "/odds";
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
