package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

/**
 * A host application sees the partner calls as Camel calls: a route of its own that intercepts
 * {@code liveoddsHttp:*} sees every attempt, the token request included, once each, with exactly the headers the
 * partner gets: the contract's, none of the upstream message's. A push's path is its {@code CamelHttpPath} header on
 * the one endpoint of the partner's base URL.
 */
class PartnerInterceptTest {

    /** One intercepted call: its endpoint and the non-Camel headers it carries. */
    record Seen(String uri, Map<String, Object> headers) {
    }

    @Test
    void aHostRouteInterceptingTheComponentSeesEveryAttemptOnceWithOnlyTheContractsHeaders() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.delivery.backoff.initial", "20ms").start()) {
            List<Seen> seen = new CopyOnWriteArrayList<>();
            service.context().addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    interceptSendToEndpoint("liveoddsHttp:*").process(exchange -> {
                        Map<String, Object> headers = new java.util.TreeMap<>(exchange.getMessage().getHeaders());
                        headers.keySet().removeIf(name -> name.startsWith("Camel"));
                        // the push route's one endpoint is the partner's base URL; the push's path is in CamelHttpPath
                        String endpoint = exchange.getProperty("CamelInterceptedEndpoint", String.class);
                        String path = exchange.getMessage().getHeader("CamelHttpPath", String.class);
                        seen.add(new Seen(path == null ? endpoint : endpoint.replaceAll("\\?.*", "") + path, headers));
                    });
                    from("direct:host-idle").routeId("host-idle").log("nothing");
                }
            });
            // the first two attempts of match 9001 answer 503, the third 202: three attempts, three requests
            AtomicInteger failures = new AtomicInteger(2);
            partner.failing(path -> path.contains("match:9001") && failures.getAndDecrement() > 0);
            service.drop("a.json", Messages.odds("m-9001", Messages.external("f1", 9001)));
            service.drop("b.json", Messages.odds("m-9002", Messages.external("f2", 9002)));

            await().atMost(Duration.ofSeconds(20)).until(() -> partner.arrivals().stream().filter(a -> a.status() == 202).count() == 2);
            List<LoopbackPartner.Arrival> pushes = partner.arrivals();
            assertThat(pushes).hasSize(4);
            List<Seen> pushCalls = seen.stream().filter(s -> s.uri().contains("/partner/v1/liveodds/42/")).toList();
            // one intercepted call per request the partner received, the same four paths
            assertThat(pushCalls).extracting(s -> s.uri().replaceAll(".*(/partner/[^?]*).*", "$1"))
                    .containsExactlyInAnyOrderElementsOf(pushes.stream().map(LoopbackPartner.Arrival::path).toList());
            assertThat(seen).filteredOn(s -> s.uri().contains("/auth/oauth/token")).hasSize(1);
            for (Seen call : pushCalls) {
                String matchId = call.uri().contains("match:9001") ? "m-9001" : "m-9002";
                assertThat(call.headers()).containsOnlyKeys("Authorization", "Content-Type", "Idempotency-Key")
                        .containsEntry("Authorization", "Bearer loopback-token")
                        .containsEntry("Content-Type", "application/json")
                        .containsEntry("Idempotency-Key", matchId);
            }
        }
    }

    /**
     * Contract 10 "Nothing gets stuck": an Error thrown on the partner pool's thread by a host route intercepting
     * liveoddsHttp:* (what an OutOfMemoryError there does) neither loses the push nor blocks its match: it is delivered
     * on a later attempt, the other matches keep flowing meanwhile, and liveness turns DOWN naming delivery.
     */
    @Test
    void anErrorThrownByAHostInterceptorLeavesNoPushStuckAndTurnsLivenessDown() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     // no heartbeat comes by to run, by chance, what Camel left on the thread that met the Error
                     .set("liveodds.heartbeat.interval", "1h")
                     .set("liveodds.delivery.backoff.initial", "20ms").start()) {
            AtomicInteger errors = new AtomicInteger(1);
            service.context().addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    interceptSendToEndpoint("liveoddsHttp:*").process(exchange -> {
                        String path = exchange.getMessage().getHeader("CamelHttpPath", String.class);
                        if (path != null && path.contains("match:9101") && errors.getAndDecrement() > 0) {
                            throw new OutOfMemoryError("test: no heap left");
                        }
                    });
                    // an intercept takes effect with a route of its builder
                    from("direct:host-idle").routeId("host-idle").log("nothing");
                }
            });
            assertThat(service.management("/observe/health/live").statusCode()).isEqualTo(200);
            service.drop("a.json", Messages.odds("m-9101", Messages.external("f1", 9101)));
            service.drop("b.json", Messages.odds("m-9102", Messages.external("f2", 9102)));

            // handed back to its source, read again and delivered; the other match went on meanwhile
            await().atMost(Duration.ofSeconds(20)).until(() -> delivered(partner, "m-9101") == 1);
            assertThat(errors.get()).as("the Error's attempt sent nothing; a later one was intercepted again").isNegative();
            assertThat(delivered(partner, "m-9102")).isEqualTo(1);
            // a later message of the match that met the Error flows too: the match is not blocked
            service.drop("c.json", Messages.odds("m-9101b", Messages.external("f1", 9101)));
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner, "m-9101b") == 1);
            assertThat(partner.arrivals()).filteredOn(a -> !a.isHeartbeat()).extracting(LoopbackPartner.Arrival::messageId)
                    .containsExactlyInAnyOrder("m-9101", "m-9102", "m-9101b");
            assertThat(service.deadLetterCount()).isZero();

            var live = service.management("/observe/health/live");
            assertThat(live.statusCode()).isEqualTo(503);
            assertThat(live.body()).contains("delivery").contains("OutOfMemoryError");
        }
    }

    private static long delivered(LoopbackPartner partner, String messageId) {
        return partner.arrivals().stream().filter(a -> a.status() == 202 && messageId.equals(a.messageId())).count();
    }
}
