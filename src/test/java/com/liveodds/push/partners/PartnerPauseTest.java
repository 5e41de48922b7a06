package com.liveodds.push.partners;

import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_A;
import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_B;
import static com.liveodds.push.partners.ThreePartners.BOOKED_BY_C;
import static com.liveodds.push.partners.ThreePartners.assertDeliveredInOrder;
import static com.liveodds.push.partners.ThreePartners.backlogInMemory;
import static com.liveodds.push.partners.ThreePartners.delivered;
import static com.liveodds.push.partners.ThreePartners.sizeFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.partner.PartnerPauses;
import com.liveodds.push.source.kafka.KafkaPartitions;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.EmbeddedArtemis.Outgoing;
import com.liveodds.push.support.EmbeddedKafka;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.apache.activemq.artemis.core.server.Queue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pause and resume a partner (contract 24) on the real service: partners a, b and c of {@link ThreePartners}, c paused
 * through the admin API. While paused c is sent nothing (no push, no heartbeat) and what it has not had waits at its
 * own place with the source (the inbox, its JMS queue, its Kafka group's offsets) while a and b go on; the pause stays
 * across a restart; on resume c gets everything in per-match order from where it stopped. A partner that keeps failing
 * is paused by itself after liveodds.partner.pause-after.
 */
class PartnerPauseTest {

    private static final String ADMIN = "Bearer ops-pause-token";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough for a push or heartbeat to c to show if any were sent. */
    private static final Duration NOTHING_FOR = Duration.ofSeconds(2);

    @Test
    void onTheFileSourceAPausedPartnerWaitsInTheInboxStaysPausedAcrossARestartAndResumesInOrder(@TempDir Path work) throws Exception {
        try (LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            RunningService first = service(a, b, c, work).start();
            assertThat(pause(first, "nobody")).satisfies(r -> {
                assertThat(r.statusCode()).isEqualTo(404);
                assertThat(JSON.readTree(r.body()).path("error").asText()).isEqualTo("not_found");
            });
            assertThat(first.request("POST", "/admin/partners/c/pause", null).statusCode()).isEqualTo(401);
            assertThat(pause(first, "c")).satisfies(r -> {
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(JSON.readTree(r.body())).isEqualTo(JSON.readTree("{\"partner\":\"c\",\"paused\":true}"));
            });
            assertThat(paused(first, "c")).isEqualTo("1.0");
            assertThat(paused(first, "a")).isEqualTo("0.0");

            dropBatch(first, "first");
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "first").size() == sizeFor(BOOKED_BY_A)
                    && delivered(b, "first").size() == sizeFor(BOOKED_BY_B));
            await().during(NOTHING_FOR).atMost(NOTHING_FOR.plusSeconds(5)).until(() -> c.arrivals().isEmpty());
            // c has taken none of them: every file stays in the inbox, c's progress where it stopped
            assertThat(inboxFiles(first)).hasSize(ThreePartners.batch("first").size());
            assertThat(status(first).path("partners").get(2).path("paused").asBoolean()).isTrue();

            // the pause outlives a restart; what comes meanwhile waits for c too
            first.close();
            try (RunningService second = service(a, b, c, work).start()) {
                assertThat(paused(second, "c")).isEqualTo("1.0");
                dropBatch(second, "second");
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "second").size() == sizeFor(BOOKED_BY_A)
                        && delivered(b, "second").size() == sizeFor(BOOKED_BY_B));
                await().during(NOTHING_FOR).atMost(NOTHING_FOR.plusSeconds(5)).until(() -> c.arrivals().isEmpty());

                assertThat(resume(second, "c")).satisfies(r -> assertThat(JSON.readTree(r.body()))
                        .isEqualTo(JSON.readTree("{\"partner\":\"c\",\"paused\":false}")));
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(c, "first").size() == sizeFor(BOOKED_BY_C)
                        && delivered(c, "second").size() == sizeFor(BOOKED_BY_C));
                assertThat(paused(second, "c")).isEqualTo("0.0");
                assertDeliveredInOrder(a, BOOKED_BY_A);
                assertDeliveredInOrder(b, BOOKED_BY_B);
                assertDeliveredInOrder(c, BOOKED_BY_C);
                // every partner is done with every file: the inbox empties into .done/
                await().atMost(Duration.ofSeconds(30)).until(() -> inboxFiles(second).isEmpty());
                assertThat(second.deadLetterCount()).isZero();
            }
        }
    }

    @Test
    void onJmsAPausedPartnersBacklogWaitsInItsQueueOnTheBrokerAndComesInOrderOnResume(@TempDir Path work) throws Exception {
        try (EmbeddedArtemis broker = new EmbeddedArtemis().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner();
             RunningService service = service(a, b, c, work)
                     .set("liveodds.source", "jms")
                     .set("liveodds.source.jms.url", broker.url())
                     .set("liveodds.source.jms.consumers", "2")
                     .start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> List.of("a", "b", "c").stream()
                    .allMatch(p -> jmsQueueOf(broker, p) != null && jmsQueueOf(broker, p).getConsumerCount() == 2));
            assertThat(pause(service, "c").statusCode()).isEqualTo(200);

            broker.publish("liveodds.upstream", ThreePartners.batch("first").stream()
                    .map(m -> Outgoing.text(m.fight(), m.body())).toList());
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "first").size() == sizeFor(BOOKED_BY_A)
                    && delivered(b, "first").size() == sizeFor(BOOKED_BY_B));
            await().during(NOTHING_FOR).atMost(NOTHING_FOR.plusSeconds(5)).until(() -> c.arrivals().isEmpty());
            // every message of the batch waits unacknowledged in c's queue, none in c's queues in memory
            assertThat(jmsQueueOf(broker, "c").getMessageCount()).isEqualTo(ThreePartners.batch("first").size());
            assertThat(backlogInMemory(service, "c")).isZero();

            resume(service, "c");
            await().atMost(Duration.ofSeconds(60)).until(() -> delivered(c, "first").size() == sizeFor(BOOKED_BY_C));
            await().atMost(Duration.ofSeconds(20)).until(() -> jmsQueueOf(broker, "c").getMessageCount() == 0);
            assertDeliveredInOrder(a, BOOKED_BY_A);
            assertDeliveredInOrder(c, BOOKED_BY_C);
            assertThat(jmsQueueOf(broker, "c").getMessagesKilled()).isZero();
        }
    }

    @Test
    void onKafkaAPausedPartnersGroupCommitsNothingAndResumesFromItsOffsetsInOrder(@TempDir Path work) throws Exception {
        String topic = "paused";
        int partitions = 4;
        try (EmbeddedKafka kafka = new EmbeddedKafka().start();
             LoopbackPartner a = new LoopbackPartner();
             LoopbackPartner b = new LoopbackPartner();
             LoopbackPartner c = new LoopbackPartner()) {
            kafka.createTopic(topic, partitions);
            try (RunningService service = service(a, b, c, work)
                    .set("liveodds.source", "kafka")
                    .set("liveodds.source.kafka.brokers", kafka.bootstrap())
                    .set("liveodds.source.kafka.topic", topic)
                    .set("liveodds.source.kafka.group", "g-paused")
                    .set("liveodds.source.kafka.start", "earliest")
                    .set("liveodds.source.kafka.session-timeout", "6s")
                    .start()) {
                for (String partner : List.of("a", "b", "c")) {
                    KafkaPartitions owned = service.kafkaPartitions(partner);
                    await().atMost(Duration.ofSeconds(60)).until(() -> owned.owned().size() == partitions);
                }
                assertThat(pause(service, "c").statusCode()).isEqualTo(200);

                for (ThreePartners.Upstream message : ThreePartners.batch("first")) {
                    kafka.send(topic, message.fight(), message.body());
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> delivered(a, "first").size() == sizeFor(BOOKED_BY_A)
                        && delivered(b, "first").size() == sizeFor(BOOKED_BY_B));
                await().during(NOTHING_FOR).atMost(NOTHING_FOR.plusSeconds(5)).until(() -> c.arrivals().isEmpty());
                // c's group stays in the group (its partitions are still its own) and commits nothing: its lag is the batch
                assertThat(service.kafkaPartitions("c").owned()).hasSize(partitions);
                assertThat(kafka.lag("g-paused-c", topic, partitions)).isEqualTo(ThreePartners.batch("first").size());

                resume(service, "c");
                await().atMost(Duration.ofSeconds(60)).until(() -> delivered(c, "first").size() == sizeFor(BOOKED_BY_C));
                // committed up to the last record of each partition but one: the next record (an alive) moves it on
                await().atMost(Duration.ofSeconds(20)).until(() -> kafka.lag("g-paused-c", topic, partitions) <= partitions);
                assertDeliveredInOrder(a, BOOKED_BY_A);
                assertDeliveredInOrder(c, BOOKED_BY_C);
            }
        }
    }

    @Test
    void aPartnerThatKeepsFailingIsPausedAfterPauseAfterAndGetsItsMessagesOnResume(@TempDir Path work) throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner().failing(path -> true);
             CapturedLogs logs = CapturedLogs.of(PartnerPauses.class);
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.admin.tokens", ADMIN.substring("Bearer ".length()))
                     .set("liveodds.partner.pause-after", "3s")
                     .set("liveodds.partner.down-after", "1s")
                     .set("liveodds.delivery.backoff.max", "200ms")
                     .work(work)
                     .start()) {
            for (int i = 0; i < 3; i++) {
                service.drop("auto-00" + i + ".json", Messages.odds("auto-" + i, Messages.external("7", 907)));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> "1.0".equals(paused(service, "")));
            int attempts = partner.arrivals().size();
            assertThat(attempts).as("the partner was tried before the pause").isPositive();
            // paused: no attempt, its files stay in the inbox, nothing dead-lettered; readiness does not page for it
            await().during(NOTHING_FOR).atMost(NOTHING_FOR.plusSeconds(5)).until(() -> partner.arrivals().size() == attempts);
            assertThat(inboxFiles(service)).hasSize(3);
            assertThat(service.deadLetterCount()).isZero();
            JsonNode status = status(service).path("partner");
            assertThat(status.path("paused").asBoolean()).isTrue();
            assertThat(status.path("paused_reason").asText()).contains("failing for 3s", "HTTP 503");
            assertThat(service.management("/observe/health").statusCode()).as("readiness UP while paused").isEqualTo(200);
            assertThat(logs.messages()).filteredOn(m -> m.contains("paused")).hasSize(1);

            // the single partner is named by its id
            partner.failing(path -> false);
            assertThat(resume(service, "42").statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> delivered(partner, "auto").size() == 3);
            List<String> order = partner.arrivals().stream().filter(r -> r.status() == 202 && !r.isHeartbeat())
                    .map(LoopbackPartner.Arrival::messageId).distinct().toList();
            assertThat(order).containsExactly("auto-0", "auto-1", "auto-2");
            assertThat(paused(service, "")).isEqualTo("0.0");
            await().atMost(Duration.ofSeconds(20)).until(() -> inboxFiles(service).isEmpty());
        }
    }

    private static RunningService.Builder service(LoopbackPartner a, LoopbackPartner b, LoopbackPartner c, Path work)
            throws IOException {
        return ThreePartners.service(a, b, c, work).set("liveodds.admin.tokens", ADMIN.substring("Bearer ".length()));
    }

    private static void dropBatch(RunningService service, String batch) {
        List<ThreePartners.Upstream> messages = ThreePartners.batch(batch);
        for (int i = 0; i < messages.size(); i++) {
            service.drop(String.format("%s-%04d.json", batch, i), messages.get(i).body());
        }
    }

    private static HttpResponse<String> pause(RunningService service, String partner) throws Exception {
        return service.request("POST", "/admin/partners/" + partner + "/pause", ADMIN);
    }

    private static HttpResponse<String> resume(RunningService service, String partner) throws Exception {
        return service.request("POST", "/admin/partners/" + partner + "/resume", ADMIN);
    }

    private static JsonNode status(RunningService service) throws Exception {
        return JSON.readTree(service.request("GET", "/admin/status", ADMIN).body());
    }

    /** The sample of liveodds_partner_paused of the partner ("" the single partner, whose series has no label). */
    private static String paused(RunningService service, String partner) throws Exception {
        String series = "liveodds_partner_paused" + (partner.isEmpty() ? "" : "{partner=\"" + partner + "\"}") + " ";
        return service.management("/observe/metrics").body().lines().filter(l -> l.startsWith(series))
                .map(l -> l.substring(series.length()).trim()).findFirst().orElse(null);
    }

    private static List<Path> inboxFiles(RunningService service) throws IOException {
        try (Stream<Path> files = Files.list(service.inbox())) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json") && !f.getFileName().toString().startsWith("."))
                    .toList();
        }
    }

    /** Partner {@code name}'s queue on the upstream address: its shared durable subscription, dots escaped by Artemis. */
    private static Queue jmsQueueOf(EmbeddedArtemis broker, String name) {
        return broker.queue("liveodds\\.upstream\\." + name);
    }
}
