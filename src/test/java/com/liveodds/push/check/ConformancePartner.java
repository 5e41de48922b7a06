package com.liveodds.push.check;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;

/**
 * A partner platform on 127.0.0.1 that keeps every rule of the interface but the one its {@link Fault} breaks:
 * token endpoint at {@code /oauth/token}, pushes at {@code /v1/liveodds/42/match:<id>/<type>}. Where it answers an
 * error it echoes the request's secrets back, as a careless partner would, so tests see that they are masked.
 */
final class ConformancePartner implements AutoCloseable {

    static final String PARTNER_ID = "42";
    static final String CLIENT_ID = "check-client";

    /** The one rule broken, and the check that must fail (or warn) because of it. */
    enum Fault {
        NONE(null, null),
        NO_TOKEN_ACCEPTED("push-without-token", null),
        FORGED_TOKEN_ACCEPTED("push-forged-token", null),
        EXPIRES_IN_MISSING("token-expires-in", null),
        EXPIRES_IN_STRING(null, "token-expires-in"),
        ANSWERS_200(null, "push-odds,push-market_settlement,push-rollback_settlement,push-heartbeat"),
        SETTLEMENT_500("push-market_settlement", null),
        REPEATED_KEY_REFUSED("idempotency-key-repeated", null),
        FORBIDDEN_403(null, "push-without-token,push-forged-token"),
        CONNECTION_CLOSE(null, "persistent-connections");

        final String fails;
        final String warns;

        Fault(String fails, String warns) {
            this.fails = fails;
            this.warns = warns;
        }
    }

    /** Random first: a test can look for any piece of it. */
    final String clientSecret = UUID.randomUUID() + "-conformance-secret";
    private final Fault fault;
    private final HttpServer server;
    private final Set<String> issued = ConcurrentHashMap.newKeySet();
    private final Set<String> keys = ConcurrentHashMap.newKeySet();
    private final List<String> pushPaths = new CopyOnWriteArrayList<>();

    private ConformancePartner(Fault fault, HttpServer server) {
        this.fault = fault;
        this.server = server;
        server.createContext("/", this::handle);
        server.start();
    }

    static ConformancePartner http(Fault fault) {
        try {
            return new ConformancePartner(fault, HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Over TLS with this server context; {@code needClientAuth}: mutual TLS. */
    static ConformancePartner https(SSLContext context, boolean needClientAuth) {
        try {
            HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setHttpsConfigurator(new HttpsConfigurator(context) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters parameters = context.getDefaultSSLParameters();
                    parameters.setNeedClientAuth(needClientAuth);
                    params.setSSLParameters(parameters);
                }
            });
            return new ConformancePartner(Fault.NONE, server);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String url() {
        String scheme = server instanceof HttpsServer ? "https" : "http";
        return scheme + "://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Settings of a run against this partner. */
    Map<String, String> settings() {
        Map<String, String> settings = new HashMap<>();
        settings.put("liveodds.partner.id", PARTNER_ID);
        settings.put("liveodds.partner.base-url", url());
        settings.put("liveodds.partner.auth-url", url());
        settings.put("liveodds.partner.client-id", CLIENT_ID);
        settings.put("liveodds.partner.client-secret", clientSecret);
        settings.put("liveodds.delivery.timeout", "5s");
        return settings;
    }

    /** Every access token handed out. */
    Set<String> issuedTokens() {
        return Set.copyOf(issued);
    }

    List<String> pushPaths() {
        return List.copyOf(pushPaths);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (fault == Fault.CONNECTION_CLOSE) {
                exchange.getResponseHeaders().set("Connection", "close");
            }
            String path = exchange.getRequestURI().getPath();
            if (!"POST".equals(exchange.getRequestMethod())) {
                answer(exchange, 405, "{}");
            } else if (path.equals("/oauth/token")) {
                token(exchange, form(body));
            } else if (path.startsWith("/v1/liveodds/" + PARTNER_ID + "/")) {
                pushPaths.add(path);
                push(exchange, path.substring(path.lastIndexOf('/') + 1));
            } else {
                answer(exchange, 404, "{}");
            }
        }
    }

    private void token(HttpExchange exchange, Map<String, String> form) throws IOException {
        if (!"client_credentials".equals(form.get("grant_type")) || form.get("audience") == null) {
            answer(exchange, 400, "{\"error\":\"invalid_request\"}");
            return;
        }
        if (!CLIENT_ID.equals(form.get("client_id")) || !clientSecret.equals(form.get("client_secret"))) {
            answer(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        String token = UUID.randomUUID() + "-token";
        issued.add(token);
        String expiresIn = switch (fault) {
            case EXPIRES_IN_MISSING -> "";
            case EXPIRES_IN_STRING -> ",\"expires_in\":\"300\"";
            default -> ",\"expires_in\":300";
        };
        // lower case: token_type is case-insensitive (RFC 6749 section 5.1)
        answer(exchange, 200, "{\"access_token\":\"" + token + "\",\"token_type\":\"bearer\"" + expiresIn + "}");
    }

    private void push(HttpExchange exchange, String type) throws IOException {
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        String token = authorization != null && authorization.startsWith("Bearer ") ? authorization.substring(7) : null;
        int refusal = fault == Fault.FORBIDDEN_403 ? 403 : 401;
        if (token == null && fault != Fault.NO_TOKEN_ACCEPTED) {
            answer(exchange, refusal, "{\"error\":\"invalid_token\"}");
            return;
        }
        if (token != null && !issued.contains(token) && fault != Fault.FORGED_TOKEN_ACCEPTED) {
            answer(exchange, refusal, "{\"error\":\"invalid_token\"}");
            return;
        }
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        boolean repeated = key != null && !keys.add(key);
        if (fault == Fault.SETTLEMENT_500 && type.equals("market_settlement")) {
            // a careless partner: the request's credentials echoed in its error page
            answer(exchange, 500, "{\"error\":\"boom\",\"authorization\":\"" + authorization + "\",\"client_secret\":\""
                    + clientSecret + "\"}");
        } else if (fault == Fault.REPEATED_KEY_REFUSED && repeated) {
            answer(exchange, 409, "{\"error\":\"duplicate Idempotency-Key " + key + "\"}");
        } else {
            answer(exchange, fault == Fault.ANSWERS_200 ? 200 : 202, "{\"status\":\"accepted\"}");
        }
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new HashMap<>();
        for (String pair : body.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                form.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        return form;
    }

    private static void answer(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
