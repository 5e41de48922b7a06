package com.example.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.camel.CamelContext;
import org.apache.camel.ConsumerTemplate;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.component.kafka.KafkaClientFactory;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.component.kafka.consumer.support.subcription.SubscribeAdapter;
import org.apache.camel.component.seda.SedaComponent;
import org.apache.camel.main.Main;
import org.apache.camel.support.CamelContextHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The host application as its users run it (its own application.properties, its own routes, the bundle added as a
 * dependency) against a partner on loopback: the bundle delivers, and the host keeps its routes, endpoints, component
 * settings and Kafka consumers as they are, and never sees a secret of the bundle in its log.
 * <p>
 * The host's route ids heartbeat, ingest, deliver and its endpoints direct:ingest and direct:replay are the ones the
 * bundle itself used before its names were prefixed with liveodds (contract section 12): until that rename, this
 * test fails at start-up on them, and on nothing else.
 */
class HostApplicationTest {

    private static final String CLIENT_SECRET = "host-example-client-secret";
    private static final String FIXTURES_TOKEN = "host-example-fixtures-token";

    @TempDir
    Path home;

    @Test
    void theBundlePushesToThePartnerWhileTheHostKeepsItsOwnRoutesAndSettings() throws Exception {
        ListAppender<ILoggingEvent> log = captureLog();
        try (LoopbackPartner partner = new LoopbackPartner()) {
            Files.createDirectories(home.resolve("data"));
            Files.writeString(home.resolve("data/fixtures.json"), "[]");
            int serverPort = freePort();

            Main main = new Main(HostApplication.class);
            main.addOverrideProperty("camel.server.port", Integer.toString(serverPort));
            main.addOverrideProperty("host.echo.url", partner.url() + "/echo");
            // nothing listens there: the host's consumer only has to subscribe
            main.addOverrideProperty("host.kafka.brokers", "127.0.0.1:" + freePort());
            main.addOverrideProperty("liveodds.partner.base-url", partner.url());
            main.addOverrideProperty("liveodds.partner.auth-url", partner.url());
            main.addOverrideProperty("liveodds.home", home.toString());
            main.start();
            try {
                CamelContext context = main.getCamelContext();

                // the bundle: a file in its inbox becomes a push with the contract's headers
                drop(home.resolve("data/inbox"), "m-1.json", """
                        {"message_id":"m-1","message_type":"odds","odds_type":"delta","timestamp":"2026-11-21T20:15:03.123Z",
                         "fight_metadata":{"fight_id":"7","card_id":"4412","correction":0},"markets":[]}""");
                await().atMost(Duration.ofSeconds(20)).until(() -> !partner.pushes.isEmpty());
                LoopbackPartner.Push push = partner.pushes.get(0);
                assertThat(push.path()).isEqualTo("/v1/liveodds/42/match:44120070/odds");
                assertThat(push.header("Authorization")).isEqualTo("Bearer " + LoopbackPartner.ACCESS_TOKEN);
                assertThat(push.header("Idempotency-Key")).isEqualTo("m-1");
                assertThat(push.header("Content-Type")).startsWith("application/json");
                assertThat(push.body()).contains("\"fight_id_sr\":\"match:44120070\"");

                // the bundle's fixtures API on the host's platform-http server
                HttpResponse<String> fixtures = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + serverPort + "/v1/liveodds/42/fixtures"))
                        .header("Authorization", "Bearer " + FIXTURES_TOKEN).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(fixtures.statusCode()).isEqualTo(200);

                // the host's own routes and endpoints
                ProducerTemplate producer = context.createProducerTemplate();
                ConsumerTemplate consumer = context.createConsumerTemplate();
                producer.sendBody("direct:ingest", "hello");
                assertThat(consumer.receiveBody("seda:host-done", 10_000, String.class)).isEqualTo("echo:hello");
                assertThat(producer.requestBody("direct:replay", "x", String.class)).isEqualTo("host-replay:x");
                assertThat(consumer.receiveBody("seda:host-beats", 5_000, String.class)).isEqualTo("beat");

                // the host's components keep the host's settings and nothing else
                HttpComponent http = context.getComponent("http", HttpComponent.class);
                assertThat(http.getConnectTimeout()).isEqualTo(1500);
                assertThat(http.isAutomaticRetriesDisabled()).isFalse();
                SedaComponent seda = context.getComponent("seda", SedaComponent.class);
                assertThat(seda.getQueueSize()).isEqualTo(64);
                assertThat(seda.isDefaultBlockWhenFull()).isFalse();

                // the host's Kafka consumers subscribe the default way: camel-kafka finds no subscribe adapter
                // (it looks one up by name for every consumer) and the kafka component gets no client factory
                assertThat(context.getRouteController().getRouteStatus("host-kafka").isStarted()).isTrue();
                assertThat(context.getRegistry().lookupByNameAndType("subscribeAdapter", SubscribeAdapter.class)).isNull();
                assertThat(context.getRegistry().findByType(SubscribeAdapter.class)).isEmpty();
                assertThat(context.getRegistry().findByType(KafkaClientFactory.class)).isEmpty();
                KafkaClientFactory hostFactory = context.getComponent("kafka", KafkaComponent.class).getKafkaClientFactory();
                assertThat(hostFactory == null ? null : hostFactory.getClass().getName())
                        .isIn(null, "org.apache.camel.component.kafka.DefaultKafkaClientFactory");

                // the host's unnamed route configuration (interceptFrom, onException handled) ran on its routes only
                List<String> intercepted = new ArrayList<>();
                for (String routeId; (routeId = consumer.receiveBody("seda:host-intercepted?size=100000", 100, String.class)) != null; ) {
                    intercepted.add(routeId);
                }
                // (but for the fixtures REST DSL service: Camel 4.18's REST DSL cannot name a route configuration)
                assertThat(intercepted).contains("heartbeat", "ingest")
                        .filteredOn(id -> id.startsWith("liveodds")).containsOnly("liveodds-fixtures");
                // what the host masks is the host's: its own URL settings are not, and the bundle reading files
                // never creates the host's jms component
                assertThat(context.getCamelContextExtension().getAdditionalSensitiveKeywords()).isEqualTo("tokens");
                assertThat(CamelContextHelper.containsSensitive(context, "host.echo.url")).isFalse();
                assertThat(context.hasComponent("jms")).isNull();
            } finally {
                main.stop();
            }
        }

        String logged = log.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.joining("\n"));
        assertThat(logged).contains("Pushing to partner");
        assertThat(logged).doesNotContain(CLIENT_SECRET).doesNotContain(FIXTURES_TOKEN)
                .doesNotContain(LoopbackPartner.ACCESS_TOKEN);
    }

    private static ListAppender<ILoggingEvent> captureLog() {
        LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.setContext(logging);
        appender.start();
        logging.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        return appender;
    }

    /** As producers must: written hidden, then renamed. */
    private static void drop(Path inbox, String name, String body) throws IOException {
        Files.createDirectories(inbox);
        Path hidden = inbox.resolve("." + name);
        Files.writeString(hidden, body);
        Files.move(hidden, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
