package com.liveodds.push.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import com.liveodds.push.support.RunningService;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

/**
 * A fast partner on 127.0.0.1 (Vert.x): the token endpoint {@code POST /auth/oauth/token} and the push paths
 * {@code /v1/liveodds/<partner id>/match:{id}/{type}}, answered 202 after an injected latency that holds no thread
 * ({@code vertx.setTimer}), or 503 for one match during a chosen window. What arrives is recorded in the current
 * run's {@link Arrivals}. A push without this partner's own token is answered 401 and counted: in the fan-out, a
 * token of one partner sent to another shows there.
 */
final class BenchPartner implements AutoCloseable {

    /**
     * Who a partner is: its name in {@code liveodds.partners} (empty for the single partner of
     * {@code liveodds.partner.*}), the id in its push paths, the client credentials it expects and the token it hands out.
     */
    record Identity(String name, String partnerId, String clientId, String clientSecret, String token) {

        /** The partner of the single-partner runs. */
        static final Identity SINGLE = new Identity("", "42", "bench-client", "bench-secret", "bench-token");

        /** Receiver r (from 0) of the fan-out: partner {@code p01}, {@code p02}, ... */
        static Identity receiver(int r) {
            String name = String.format("p%02d", r + 1);
            return new Identity(name, Integer.toString(101 + r), "client-" + name, "secret-of-" + name, "token-of-" + name);
        }
    }

    final Identity identity;
    private final String pushPrefix;
    private final String authorization;
    private final String tokenAnswer;
    private final Vertx vertx;
    private final List<HttpServer> servers = new ArrayList<>();
    private final int port;
    private final LongAdder tokenRequests = new LongAdder();
    private final LongAdder unauthorized = new LongAdder();
    private volatile Arrivals arrivals = new Arrivals(new Load("none", 0, 1));
    /** The warm-up of the current run (null: none): its pushes are recorded apart from the measured ones. */
    private volatile Arrivals warmUp;
    private volatile long latencyMs;
    private volatile int failingMatch = -1;
    private volatile long failFrom;
    private volatile long failUntil;

    private BenchPartner(Identity identity, Vertx vertx, int port) {
        this.identity = identity;
        this.pushPrefix = "/v1/liveodds/" + identity.partnerId() + "/";
        this.authorization = "Bearer " + identity.token();
        this.tokenAnswer = "{\"access_token\":\"" + identity.token() + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}";
        this.vertx = vertx;
        this.port = port;
    }

    /** The partner of the single-partner runs, on two event loops. */
    static BenchPartner start() throws Exception {
        return start(Identity.SINGLE, 2);
    }

    /** The receivers of the fan-out, one event loop each (the machine has no more cores for them than for one). */
    static List<BenchPartner> start(int receivers) throws Exception {
        List<BenchPartner> started = new ArrayList<>();
        for (int r = 0; r < receivers; r++) {
            started.add(start(Identity.receiver(r), 1));
        }
        return started;
    }

    private static BenchPartner start(Identity identity, int eventLoops) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
        BenchPartner partner = new BenchPartner(identity, vertx, RunningService.freePort());
        // several servers on one port: Vert.x spreads the connections over their event loops
        for (int i = 0; i < eventLoops; i++) {
            HttpServer server = vertx.createHttpServer().requestHandler(partner::handle);
            partner.servers.add(server.listen(partner.port, "127.0.0.1").toCompletionStage().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS));
        }
        return partner;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    String authUrl() {
        return baseUrl() + "/auth";
    }

    /** Starts recording a new run: pushes of other loads are counted as strays from now on. */
    Arrivals record(Load load, long latencyMs) {
        this.latencyMs = latencyMs;
        this.failingMatch = -1;
        this.warmUp = null;
        this.arrivals = new Arrivals(load);
        return arrivals;
    }

    /** Records the current run's warm-up as well, apart: set before any of it is sent, as {@link #record}. */
    Arrivals recordWarmUp(Load load) {
        this.warmUp = new Arrivals(load);
        return warmUp;
    }

    /** Match m is answered 503 for pushes arriving in [from, until) (System.nanoTime). */
    void failMatch(int m, long from, long until) {
        this.failFrom = from;
        this.failUntil = until;
        this.failingMatch = m;
    }

    long tokenRequests() {
        return tokenRequests.sum();
    }

    long unauthorized() {
        return unauthorized.sum();
    }

    private void handle(HttpServerRequest request) {
        String path = request.path();
        if (request.method() != HttpMethod.POST) {
            request.response().setStatusCode(405).end();
        } else if (path.equals("/auth/oauth/token")) {
            request.body().onSuccess(form -> {
                tokenRequests.increment();
                request.response().putHeader("Content-Type", "application/json").end(tokenAnswer);
            });
        } else if (path.startsWith(pushPrefix)) {
            request.body().onSuccess(body -> push(request, path, body));
        } else {
            request.response().setStatusCode(404).end();
        }
    }

    private void push(HttpServerRequest request, String path, Buffer body) {
        long now = System.nanoTime();
        if (!authorization.equals(request.getHeader("Authorization"))) {
            unauthorized.increment();
            request.response().setStatusCode(401).end();
            return;
        }
        int slash = path.indexOf('/', pushPrefix.length());
        String matchId = slash < 0 ? path.substring(pushPrefix.length()) : path.substring(pushPrefix.length(), slash);
        String type = slash < 0 ? "" : path.substring(slash + 1);
        String key = request.getHeader("Idempotency-Key");
        Arrivals warm = warmUp;
        Arrivals run = warm != null && warm.load.indexOf(key) >= 0 ? warm : arrivals;
        if (type.equals("heartbeat")) {
            run.heartbeats.increment();
            request.response().setStatusCode(202).end();
            return;
        }
        boolean failing = Load.matchIndex(matchId) == failingMatch && now >= failFrom && now < failUntil;
        int i = run.arrived(matchId, key, messageId(body), now, !failing);
        int status = failing ? 503 : 202;
        Runnable answer = () -> {
            if (i >= 0) {
                run.answered(i);
            }
            request.response().setStatusCode(status).end();
        };
        long latency = latencyMs;
        if (latency > 0) {
            vertx.setTimer(latency, timer -> answer.run());
        } else {
            answer.run();
        }
    }

    /** The body's message_id, read without a JSON parser (the partner must stay cheap next to the service). */
    static String messageId(Buffer body) {
        String text = body.toString(StandardCharsets.UTF_8);
        int key = text.indexOf("\"message_id\"");
        if (key < 0) {
            return null;
        }
        int open = text.indexOf('"', text.indexOf(':', key) + 1);
        int close = text.indexOf('"', open + 1);
        return open < 0 || close < 0 ? null : text.substring(open + 1, close);
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
