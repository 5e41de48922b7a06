package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;

import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.builder.RouteConfigurationBuilder;
import org.apache.camel.main.Main;
import org.apache.camel.support.CamelContextHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundle in a host that declares, for its own routes, an unnamed route configuration swallowing every exception
 * ({@code onException(Exception).handled(true)}) and an {@code interceptFrom}: none of it reaches the bundle's routes.
 * A message in retry at shutdown, and the ones waiting behind it for room, stay with their source (in the inbox, not in
 * .done); a bad message is still dead-lettered; the host's own settings are masked as the host says (its
 * {@code host.backend.url} stays readable) and its {@code jms} component is never created by a bundle reading files.
 */
class HostSafetyTest {

    private final Queue<String> interceptedRoutes = new ConcurrentLinkedQueue<>();
    private final Queue<String> swallowedInRoutes = new ConcurrentLinkedQueue<>();
    private final int port = RunningService.freePort();

    @Test
    void aHostsUnnamedRouteConfigurationsNeverApplyToTheBundle(@TempDir Path home) throws Exception {
        Path inbox = home.resolve("data/inbox");
        Files.createDirectories(inbox);
        try (LoopbackPartner partner = new LoopbackPartner().failing(path -> true);
                CapturedLogs logs = CapturedLogs.all()) {
            Main main = host(home, partner);
            main.start();
            CamelContext context = main.getCamelContext();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> interceptedRoutes.contains("host-tick"));
                // read first (file-name order): a bad message, then one match whose first push is retried (the partner
                // answers 503) while the others wait behind it for room
                write(inbox, "00-bad.json", "{\"message_id\": \"bad\", \"message_type\": ");
                for (int i = 1; i <= 3; i++) {
                    write(inbox, "0" + i + "-odds.json", Messages.odds("host-safety-" + i, Messages.external("fight-7", 7)));
                }
                await().atMost(Duration.ofSeconds(15)).until(() -> partner.arrivals().size() >= 2);
                await().atMost(Duration.ofSeconds(15)).until(() -> files(home.resolve("data/dead-letter")).size() == 1);

                // the bundle's HTTP errors are its own even where the host swallows every exception
                assertThat(fixtures("GET", "/v1/liveodds/42/fixtures", null)).isEqualTo("401 Bearer");
                assertThat(fixtures("GET", "/v1/liveodds/7/fixtures", "Bearer host-fixtures-token")).isEqualTo("404 null");
                assertThat(fixtures("POST", "/v1/liveodds/42/fixtures", null)).isEqualTo("405 null");
                assertThat(fixtures("GET", "/admin/status", null)).isEqualTo("401 Bearer");
                // the host's own path under /admin/: no bundle token asked, no bundle size limit
                HttpResponse<String> export = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/admin/partners/export"))
                        .POST(HttpRequest.BodyPublishers.ofString("x".repeat(100_000))).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(export.statusCode()).isEqualTo(200);
                assertThat(export.body()).isEqualTo("host export of 100000 bytes");

                assertThat(context.getCamelContextExtension().getAdditionalSensitiveKeywords()).isNullOrEmpty();
                assertThat(CamelContextHelper.containsSensitive(context, "host.backend.url")).isFalse();
                assertThat(context.hasComponent("jms")).as("the host's jms component").isNull();
                assertThat(context.getLifecycleStrategies()).noneMatch(s -> s.getClass().getName().startsWith("com.liveodds"));
            } finally {
                main.stop();
            }
            // the one exception: a REST DSL service cannot name a route configuration in Camel 4.18, so the host's
            // interceptFrom would see the fixtures requests let in (its answers stay the bundle's, checked above); the
            // refused ones above are answered by the server's door before any route
            assertThat(interceptedRoutes).as("routes the host's interceptFrom ran on").contains("host-tick")
                    .filteredOn(id -> id.startsWith("liveodds")).isSubsetOf("liveodds-fixtures");
            assertThat(swallowedInRoutes).as("routes whose exceptions the host's onException swallowed")
                    .noneMatch(id -> id.startsWith("liveodds"));
            assertThat(files(inbox.resolve(".done"))).as("nothing undelivered is acknowledged to the file source")
                    .noneMatch(name -> name.endsWith("-odds.json"));
            assertThat(files(inbox)).contains("01-odds.json", "02-odds.json", "03-odds.json");
            // the host masks what it chose to: its own URL setting is printed as it is
            assertThat(logs.messages()).anyMatch(m -> m.contains("host.backend.url = http://127.0.0.1:1/backend"));
        }
    }

    private Main host(Path home, LoopbackPartner partner) {
        Main main = new Main();
        main.configure().addRoutesBuilder(new RouteConfigurationBuilder() {
            @Override
            public void configuration() {
                routeConfiguration().onException(Exception.class).handled(true)
                        .process(exchange -> swallowedInRoutes.add(String.valueOf(exchange.getFromRouteId())));
                routeConfiguration().interceptFrom()
                        .process(exchange -> interceptedRoutes.add(String.valueOf(exchange.getFromRouteId())));
            }
        });
        main.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                from("timer:host-tick?period=200").routeId("host-tick").log("host tick for {{host.backend.url}}");
                // a host path under the bundle's /admin/ and /status: the bundle's door leaves it to the host
                from("platform-http:/admin/partners/export?httpMethodRestrict=POST").routeId("host-export")
                        .setBody(simple("host export of ${body.length()} bytes"));
            }
        });
        main.addOverrideProperty("camel.main.routes-include-pattern", "classpath:liveodds/routes/*.yaml");
        main.addOverrideProperty("camel.main.shutdown-timeout", "15");
        main.addOverrideProperty("camel.server.enabled", "true");
        main.addOverrideProperty("camel.server.host", "127.0.0.1");
        main.addOverrideProperty("camel.server.port", Integer.toString(port));
        main.addOverrideProperty("liveodds.fixtures.auth.tokens", "host-fixtures-token");
        main.addOverrideProperty("host.backend.url", "http://127.0.0.1:1/backend");
        main.addOverrideProperty("liveodds.home", home.toString());
        main.addOverrideProperty("liveodds.source.file.poll-delay", "100");
        main.addOverrideProperty("liveodds.delivery.queue-size", "1");
        Map.of("liveodds.partner.id", "42", "liveodds.partner.base-url", partner.baseUrl(),
                "liveodds.partner.auth-url", partner.authUrl(), "liveodds.partner.client-id", "host",
                "liveodds.partner.client-secret", "host-secret").forEach(main::addOverrideProperty);
        return main;
    }

    /** @return the status and WWW-Authenticate header of the answer, which must be JSON */
    private String fixtures(String method, String path, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        HttpResponse<String> answer = HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.headers().firstValue("Content-Type")).as(path).hasValue("application/json");
        assertThat(answer.body()).as(path).startsWith("{\"error\":");
        return answer.statusCode() + " " + answer.headers().firstValue("WWW-Authenticate").orElse(null);
    }

    private static void write(Path inbox, String name, String content) throws Exception {
        Path hidden = inbox.resolve("." + name);
        Files.writeString(hidden, content);
        Files.move(hidden, inbox.resolve(name));
    }

    private static List<String> files(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.walk(dir)) {
            return entries.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
        }
    }
}
