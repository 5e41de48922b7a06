package com.liveodds.push.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A partner on 127.0.0.1 that answers every push after a set latency (its own handler thread waits, as a slow
 * partner would), counts how many pushes it has in hand at once, and can answer 503 or 400 to chosen pushes. Token endpoint
 * at {@code /auth/oauth/token}, pushes under {@code /partner}.
 */
public final class LoopbackPartner implements AutoCloseable {

    /** One push as it arrived: path, Idempotency-Key, when ({@link System#nanoTime()}), the answer and the body sent. */
    public record Arrival(String path, String messageId, long atNanos, int status, String body) {
        public String matchId() {
            String[] parts = path.split("/");
            return parts[parts.length - 2];
        }

        public boolean isHeartbeat() {
            return path.endsWith("/heartbeat");
        }
    }

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newFixedThreadPool(400);
    private final List<Arrival> arrivals = new CopyOnWriteArrayList<>();
    private final AtomicInteger inHand = new AtomicInteger();
    private final AtomicInteger mostInHand = new AtomicInteger();
    private volatile long latencyMillis;
    private volatile Predicate<String> failing = path -> false;
    private volatile Predicate<String> refusing = path -> false;

    public LoopbackPartner() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1000);
        server.setExecutor(handlers);
        server.createContext("/auth/oauth/token", this::token);
        server.createContext("/partner/", this::push);
        server.start();
    }

    public LoopbackPartner latency(long millis) {
        this.latencyMillis = millis;
        return this;
    }

    /** Pushes whose path matches answer 503 until this is called again. */
    public LoopbackPartner failing(Predicate<String> path) {
        this.failing = path;
        return this;
    }

    /** Pushes whose path matches answer 400 (not retryable: dead-lettered) until this is called again. */
    public LoopbackPartner refusing(Predicate<String> path) {
        this.refusing = path;
        return this;
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/partner";
    }

    public String authUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/auth";
    }

    public List<Arrival> arrivals() {
        return List.copyOf(arrivals);
    }

    /** The most pushes the partner had in hand at the same time. */
    public int mostInHand() {
        return mostInHand.get();
    }

    private void token(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        answer(exchange, 200, "{\"access_token\":\"loopback-token\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
    }

    private void push(HttpExchange exchange) throws IOException {
        int now = inHand.incrementAndGet();
        mostInHand.accumulateAndGet(now, Math::max);
        try (InputStream body = exchange.getRequestBody()) {
            byte[] sent = body.readAllBytes();
            long arrived = System.nanoTime();
            String path = exchange.getRequestURI().getPath();
            if (latencyMillis > 0) {
                Thread.sleep(latencyMillis); // the partner's own latency, on its handler thread
            }
            int status = refusing.test(path) ? 400 : failing.test(path) ? 503 : 202;
            arrivals.add(new Arrival(path, exchange.getRequestHeaders().getFirst("Idempotency-Key"), arrived, status,
                    new String(sent, StandardCharsets.UTF_8)));
            answer(exchange, status, "{}");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            inHand.decrementAndGet();
        }
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }
}
