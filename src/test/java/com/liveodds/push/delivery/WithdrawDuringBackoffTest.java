package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.liveodds.push.ops.Meters;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.apache.camel.builder.RouteBuilder;
import org.junit.jupiter.api.Test;

/**
 * A push waiting out a long back-off (a minute here) goes back to its source within liveodds.delivery.timeout once the
 * source withdraws it (a Kafka partition moved away, a JMS session closed), with no further request to the partner;
 * a push of another match goes on meanwhile.
 */
class WithdrawDuringBackoffTest {

    @Test
    void aPushWithdrawnDuringALongBackOffIsHandedBackWithinTheTimeOutAndNeverSentAgain() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.delivery.timeout", "2s")
                     .set("liveodds.delivery.backoff.initial", "120s")
                     .set("liveodds.delivery.backoff.max", "120s")
                     .start()) {
            partner.failing(path -> path.contains("match:9101"));
            AtomicBoolean withdrawn = new AtomicBoolean();
            CompletableFuture<String> handedBack = new CompletableFuture<>();
            CompletableFuture<Void> acknowledged = new CompletableFuture<>();
            // a source of the host's own, with the same handover contract as the JMS and Kafka sources
            service.context().addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:host-source").routeId("host-source")
                            .process(exchange -> SourceHandover.attach(exchange, new SourceHandover() {
                                @Override
                                public boolean isWithdrawn() {
                                    return withdrawn.get();
                                }

                                @Override
                                public void acknowledge() {
                                    acknowledged.complete(null);
                                }

                                @Override
                                public void handBack(String why) {
                                    handedBack.complete(why);
                                }
                            }))
                            .to("direct:liveodds-ingest");
                }
            });
            service.context().createProducerTemplate().asyncSendBody("direct:host-source",
                    Messages.odds("w-1", Messages.external("f1", 9101)));
            await().atMost(Duration.ofSeconds(30)).until(() -> Meters.registry(service.context())
                    .counter("liveodds.pushes.retried").count() == 1);

            // the other matches go on while this one waits
            service.drop("other.json", Messages.odds("o-1", Messages.external("f2", 9102)));
            await().atMost(Duration.ofSeconds(30)).until(() -> partner.arrivals().stream().anyMatch(a -> a.status() == 202));

            withdrawn.set(true);
            // handed back while the 120 s back-off still runs: not waited out
            String why = handedBack.get(60, TimeUnit.SECONDS);
            // the push, not the partner's last answer (the body after an attempt), names what went back
            assertThat(why).isEqualTo("withdrawn by its source");
            assertThat(acknowledged).isNotDone();
            assertThat(partner.arrivals()).filteredOn(a -> a.path().contains("match:9101")).hasSize(1);
            assertThat(service.deadLetterCount()).isZero();
        }
    }
}
