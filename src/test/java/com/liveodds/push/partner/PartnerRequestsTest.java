package com.liveodds.push.partner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One request through liveoddsHttp from plain Java (what a command like check-partner needs): exactly the given
 * headers go out, one request per call (no hidden retry of a 503 with Retry-After, no redirect followed), and the
 * answer comes back as status, Retry-After, Location and body.
 */
class PartnerRequestsTest {

    record Received(String method, String path, Map<String, List<String>> headers, String body) {
    }

    private final List<Received> received = new CopyOnWriteArrayList<>();
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.createContext("/", this::answer);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        String path = exchange.getRequestURI().getPath();
        int status = 200;
        if (path.endsWith("/busy")) {
            status = 503;
            exchange.getResponseHeaders().set("Retry-After", "1");
        } else if (path.endsWith("/moved")) {
            status = 302;
            exchange.getResponseHeaders().set("Location", base + "/elsewhere");
        }
        byte[] answer = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, answer.length);
        exchange.getResponseBody().write(answer);
        exchange.close();
    }

    @Test
    void aRequestCarriesExactlyTheGivenHeadersAndBodyAndReturnsTheAnswer() {
        try (PartnerRequests requests = PartnerRequests.standalone(new PartnerTls(), Duration.ofSeconds(5))) {
            PartnerAnswer answer = requests.send("POST", base + "/v1/check?probe=1",
                    Map.of("Authorization", "Bearer t0k", "Content-Type", "application/json"),
                    "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("{\"ok\":true}");
            assertThat(received).singleElement().satisfies(r -> {
                assertThat(r.method()).isEqualTo("POST");
                assertThat(r.path()).isEqualTo("/v1/check?probe=1");
                assertThat(r.body()).isEqualTo("{\"n\":1}");
                assertThat(r.headers().get("Authorization")).containsExactly("Bearer t0k");
                assertThat(r.headers().keySet()).noneMatch(name -> name.toLowerCase().startsWith("camel")
                        || name.equalsIgnoreCase("httpMethod"));
            });
        }
    }

    @Test
    void a503WithRetryAfterAndARedirectAreOneRequestEachAndComeBackAsAnswers() {
        try (PartnerRequests requests = PartnerRequests.standalone(new PartnerTls(), Duration.ofSeconds(5))) {
            PartnerAnswer busy = requests.send("POST", base + "/busy", Map.of(), new byte[0]);
            PartnerAnswer moved = requests.send("GET", base + "/moved", Map.of(), null);
            assertThat(busy.status()).isEqualTo(503);
            assertThat(busy.retryAfter()).isEqualTo("1");
            assertThat(moved.status()).isEqualTo(302);
            assertThat(moved.location()).isEqualTo(base + "/elsewhere");
            assertThat(received).extracting(Received::path).containsExactly("/busy", "/moved");
        }
    }

    @Test
    void noListenerIsAStatusZeroAnswerNotAnException() throws IOException {
        server.stop(0);
        try (PartnerRequests requests = PartnerRequests.standalone(new PartnerTls(), Duration.ofSeconds(5))) {
            PartnerAnswer answer = requests.send("GET", base + "/gone", Map.of(), null);
            assertThat(answer.status()).isZero();
            assertThat(answer.error()).startsWith("cannot connect");
        }
    }
}
