package com.liveodds.push.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.liveodds.push.auth.BearerAuthenticator;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServerConfiguration;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * IngestGate alone on a plain CamelContext with a platform-http server: the checks it makes before any byte of a body
 * reaches the route (bearer, declared size, bytes held at once).
 */
class IngestGateTest {

    private final CamelContext context = new DefaultCamelContext();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private int port;

    @BeforeEach
    void start() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        VertxPlatformHttpServerConfiguration server = new VertxPlatformHttpServerConfiguration();
        server.setBindHost("127.0.0.1");
        server.setPort(port);
        server.setServerType(VertxPlatformHttpRouter.SERVER_TYPE_SERVER);
        context.addService(new VertxPlatformHttpServer(server));
        // the server (and its router, which the gate hooks into) first, then the route
        context.start();

        BearerAuthenticator authenticator = new BearerAuthenticator();
        authenticator.setMode("static");
        authenticator.setTokens("ingest-token");
        authenticator.setTokensSetting("liveodds.fixtures.auth.tokens");
        authenticator.setGuards("the HTTP source");
        authenticator.start();
        HttpSource source = new HttpSource();
        source.setMaxBody(1024);
        source.setRetryAfter(Duration.ofSeconds(2));
        IngestGate gate = new IngestGate(authenticator, source);
        gate.setPath("/v1/ingest");
        gate.setMaxReceiving(3000);
        // a chunked body counts as this much
        gate.setServerMaxBody(2000);

        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("platform-http:/v1/ingest?httpMethodRestrict=POST").routePolicy(gate)
                        .process(exchange -> {
                            received.add(exchange.getMessage().getBody(String.class));
                            exchange.getMessage().setBody("{\"status\":\"accepted\"}");
                        });
            }
        });
    }

    @AfterEach
    void stop() throws Exception {
        context.close();
    }

    private HttpRequest.Builder post(String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/ingest"))
                .timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return request;
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aCallerWithoutAValidTokenIsTurnedAwayAndTheRouteNeverRuns() throws Exception {
        HttpResponse<String> none = send(post(null).POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        HttpResponse<String> wrong = send(post("guess").POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(received).isEmpty();
    }

    @Test
    void aBodyDeclaredLargerThanMaxBodyIsRefusedUnread() throws Exception {
        HttpResponse<String> answer = send(post("ingest-token").POST(HttpRequest.BodyPublishers.ofString("x".repeat(1025))).build());
        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(answer.body()).contains("payload_too_large");
        assertThat(received).isEmpty();
    }

    @Test
    void aValidCallerWithASmallBodyReachesTheRoute() throws Exception {
        HttpResponse<String> answer = send(post("ingest-token").POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}")).build());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(received).containsExactly("{\"a\":1}");
    }

    @Test
    void pastTheBytesHeldAtOnceACallerIsToldToComeBackAndIsTakenOnceTheyAreGiven() throws Exception {
        String body = "{\"b\":\"" + "y".repeat(1000) + "\"}";
        // a chunked body still on its way holds 2000 of the 3000 bytes
        try (java.net.Socket slow = new java.net.Socket("127.0.0.1", port)) {
            java.io.OutputStream out = slow.getOutputStream();
            out.write(("POST /v1/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ingest-token\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n8\r\n{\"slow\":\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();

            await().atMost(Duration.ofSeconds(5)).until(() -> send(post("ingest-token")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build()).statusCode() == 503);
            HttpResponse<String> busy = send(post("ingest-token").POST(HttpRequest.BodyPublishers.ofString(body)).build());
            assertThat(busy.statusCode()).isEqualTo(503);
            assertThat(busy.headers().firstValue("Retry-After")).hasValue("2");
            assertThat(received).doesNotContain("{\"slow\":1}");

            out.write("2\r\n1}\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(slow.getInputStream(),
                    StandardCharsets.US_ASCII)).readLine();
            assertThat(status).isEqualTo("HTTP/1.1 200 OK");
        }
        // the bytes are given back once the slow request is answered
        await().atMost(Duration.ofSeconds(5)).until(() -> send(post("ingest-token")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build()).statusCode() == 200);
        assertThat(received).contains("{\"slow\":1}", body);
    }
}
