package com.liveodds.push.delivery;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;

/**
 * A partner that misbehaves the way real ones do, decided per request from a seeded random: 500s, 429 with
 * Retry-After, stalls longer than the client time-out, dropped connections, a token revoked mid-stream while the
 * token endpoint is down for a while, and a 422 for messages marked bad. It remembers what it accepted, in order.
 */
final class FaultyPartner implements ResponseDefinitionTransformerV2 {

    record Accepted(String path, String messageId) {
    }

    private final Random random = new Random(20261121L);
    private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    private final Set<String> validTokens = ConcurrentHashMap.newKeySet();
    private final List<Accepted> accepted = new ArrayList<>();
    private final AtomicLong pushes = new AtomicLong();
    private final AtomicLong tokenCount = new AtomicLong();
    private final AtomicBoolean tokenEndpointDown = new AtomicBoolean();
    private final AtomicBoolean acceptBad = new AtomicBoolean();
    private final long revokeAtPush;
    private final long tokenDownMillis;
    private volatile long tokenDownUntil;
    final Map<String, AtomicLong> faults = new ConcurrentHashMap<>();
    private final WireMockServer server;

    FaultyPartner(long revokeAtPush, long tokenDownMillis) {
        this.revokeAtPush = revokeAtPush;
        this.tokenDownMillis = tokenDownMillis;
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort().extensions(this)
                .containerThreads(40).jettyAcceptors(2));
        server.start();
    }

    String baseUrl() {
        return server.baseUrl() + "/partner";
    }

    String authUrl() {
        return server.baseUrl() + "/auth";
    }

    void acceptBadMessages() {
        acceptBad.set(true);
    }

    synchronized List<Accepted> accepted() {
        return new ArrayList<>(accepted);
    }

    void shutdown() {
        server.stop();
    }

    @Override
    public String getName() {
        return "faulty-partner";
    }

    @Override
    public boolean applyGlobally() {
        return true;
    }

    @Override
    public ResponseDefinition transform(ServeEvent serveEvent) {
        Request request = serveEvent.getRequest();
        if (request.getUrl().startsWith("/auth/oauth/token")) {
            return token();
        }
        String auth = request.getHeader("Authorization");
        long n = pushes.incrementAndGet();
        if (n == revokeAtPush) {
            validTokens.clear();
            tokenDownUntil = System.currentTimeMillis() + tokenDownMillis;
            count("token revoked");
        }
        if (auth == null || !validTokens.contains(auth.substring("Bearer ".length()))) {
            count("401");
            return status(401);
        }
        String messageId = request.getHeader("Idempotency-Key");
        int attempt = attempts.computeIfAbsent(messageId, k -> new AtomicInteger()).incrementAndGet();
        if (messageId.endsWith("-bad") && !acceptBad.get()) {
            count("422");
            return status(422);
        }
        if (attempt <= 2) {
            int roll;
            synchronized (random) {
                roll = random.nextInt(100);
            }
            if (roll < 8) {
                count("500");
                return status(500);
            } else if (roll < 12) {
                count("429 Retry-After 1");
                return aResponse().withStatus(429).withHeader("Retry-After", "1").build();
            } else if (roll < 14) {
                count("stall");
                record(request, messageId);
                return aResponse().withStatus(202).withFixedDelay(1500).build();
            } else if (roll < 16) {
                count("connection reset");
                return aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER).build();
            }
        }
        record(request, messageId);
        return status(202);
    }

    private ResponseDefinition token() {
        if (System.currentTimeMillis() < tokenDownUntil) {
            count("token endpoint 503");
            return status(503);
        }
        String token = "tok-" + tokenCount.incrementAndGet();
        validTokens.add(token);
        return aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}").build();
    }

    private synchronized void record(Request request, String messageId) {
        if (!request.getUrl().endsWith("/heartbeat")) {
            accepted.add(new Accepted(request.getUrl(), messageId));
        }
    }

    /** Requests for the message that got past the token check. */
    int answersPast401(String messageId) {
        AtomicInteger n = attempts.get(messageId);
        return n == null ? 0 : n.get();
    }

    private void count(String fault) {
        faults.computeIfAbsent(fault, k -> new AtomicLong()).incrementAndGet();
    }

    private static ResponseDefinition status(int status) {
        return aResponse().withStatus(status).build();
    }
}
