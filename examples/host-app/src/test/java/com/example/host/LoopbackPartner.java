package com.example.host;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A partner on 127.0.0.1: its OAuth token endpoint and push receiver, plus the echo service the host's own http route
 * calls. Records every push it receives.
 */
final class LoopbackPartner implements AutoCloseable {

    static final String ACCESS_TOKEN = "loopback-access-token-7f3a";

    record Push(String path, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst().orElse(null);
        }
    }

    private final HttpServer server;
    final List<Push> pushes = new CopyOnWriteArrayList<>();

    LoopbackPartner() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/oauth/token", exchange -> answer(exchange, 200,
                "{\"access_token\":\"" + ACCESS_TOKEN + "\",\"token_type\":\"Bearer\",\"expires_in\":300}"));
        server.createContext("/v1/liveodds/", exchange -> {
            pushes.add(new Push(exchange.getRequestURI().getPath(), exchange.getRequestHeaders(), read(exchange)));
            answer(exchange, 202, "{\"status\":\"accepted\"}");
        });
        server.createContext("/echo", exchange -> answer(exchange, 200, "echo:" + read(exchange)));
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private static String read(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
