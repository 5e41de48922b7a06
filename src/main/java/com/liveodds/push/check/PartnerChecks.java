package com.liveodds.push.check;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.net.ssl.SSLContext;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.ops.SecretMask;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerTls;
import com.liveodds.push.settings.Timestamps;
import com.liveodds.push.token.PartnerTokenProvider;
import com.liveodds.push.token.TokenUnavailableException;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.id.ClientID;

/**
 * The rules of the partner interface, each checked against the live partner (contract section 18): the token
 * endpoint, every push endpoint of the one test match, the refusal of pushes without a valid token, a repeated
 * {@code Idempotency-Key}, TLS, persistent connections and latency. Every detail passes the {@link SecretMask}.
 */
public final class PartnerChecks {

    /** The four push endpoints of the interface (part B). */
    public static final List<String> MESSAGE_TYPES = List.of("odds", "market_settlement", "rollback_settlement", "heartbeat");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int QUOTED = 120;

    private final PartnerUnderCheck partner;
    private final String match;
    private final int latencyPushes;
    private final SecretMask mask;
    private final List<CheckResult> results = new ArrayList<>();

    private PartnerTls tls;
    private SSLContext sslContext;
    private String token;
    private String tokenProblem;

    /**
     * @param match         {@code match:<digits>}, the partner's test match: the only match pushed to
     * @param latencyPushes how many heartbeats the latency is measured over
     * @param mask          knows the secrets of the settings; the tokens of the check are added to it
     */
    public PartnerChecks(PartnerUnderCheck partner, String match, int latencyPushes, SecretMask mask) {
        this.partner = partner;
        this.match = match;
        this.latencyPushes = latencyPushes;
        this.mask = mask;
    }

    /** Runs every check in turn; a check whose prerequisite failed (TLS, the token) is reported as skipped. */
    public List<CheckResult> run() {
        checkTls();
        boolean tlsFailed = failed("tls") || failed("tls-client-certificate");
        List<String> rest = new ArrayList<>(List.of("token-request", "token-type", "token-expires-in", "token-wrong-secret"));
        MESSAGE_TYPES.forEach(type -> rest.add("push-" + type));
        rest.addAll(List.of("push-without-token", "push-forged-token", "idempotency-key-repeated", "persistent-connections",
                "latency"));
        if (tlsFailed) {
            rest.forEach(name -> skip(name, "the TLS check failed"));
            return results;
        }
        try (PartnerExchange exchange = new PartnerExchange(partner.timeout(), tls)) {
            checkTokenEndpoint(exchange);
            obtainDeliveryToken(exchange);
            for (String type : MESSAGE_TYPES) {
                withToken("push-" + type, () -> pushOfType(exchange, type));
            }
            check("push-without-token", () -> refusal(exchange, null, "a push without a token"));
            String forged = "Bearer forged-" + UUID.randomUUID();
            mask.register(forged.substring("Bearer ".length()));
            check("push-forged-token", () -> refusal(exchange, forged, "a push with a forged token"));
            withToken("idempotency-key-repeated", () -> repeatedKey(exchange));
            withToken("persistent-connections", this::persistentConnections);
            withToken("latency", () -> latency(exchange));
        }
        return results;
    }

    private void checkTls() {
        Set<URI> urls = new LinkedHashSet<>(List.of(URI.create(partner.baseUrl()), URI.create(partner.authUrl())));
        List<URI> secure = urls.stream().filter(u -> "https".equalsIgnoreCase(u.getScheme())).toList();
        check("tls", () -> {
            tls = new PartnerTls(partner.trustStore(), partner.trustStorePassword(), partner.keyStore(), partner.keyStorePassword());
            sslContext = tls.sslContext();
            List<String> plain = urls.stream().filter(u -> !"https".equalsIgnoreCase(u.getScheme())).map(URI::toString).toList();
            List<String> seen = new ArrayList<>();
            for (URI url : secure) {
                try {
                    ConnectionProbe.TlsFacts facts = probe().handshake(url);
                    seen.add(url.getHost() + " (" + facts.protocol() + ", certificate " + facts.peerSubject() + ")");
                } catch (IOException e) {
                    return Outcome.fail("certificate of " + url.getHost() + ":" + ConnectionProbe.port(url) + " not accepted: " + why(e)
                            + " (contract 10: TLS to the partner, certificate valid for the host; probe on the partner TLS context)");
                }
            }
            if (!plain.isEmpty()) {
                return Outcome.warn("plain http:// " + String.join(", ", plain)
                        + ": the client secret, tokens and pushes travel unencrypted (contract 10: TLS to the partner)"
                        + (seen.isEmpty() ? "" : "; valid for " + String.join(", ", seen)));
            }
            return Outcome.pass("certificate valid for " + String.join(", ", seen)
                    + " (contract 10: TLS to the partner; host name checked as HTTPS does, probe on the partner TLS context)");
        });
        if (!partner.keyStore().isEmpty() && !secure.isEmpty() && !failed("tls")) {
            check("tls-client-certificate", () -> {
                List<String> missing = new ArrayList<>();
                for (URI url : secure) {
                    if (!probe().handshake(url).clientCertificatePresented()) {
                        missing.add(url.getHost() + ":" + ConnectionProbe.port(url));
                    }
                }
                return missing.isEmpty()
                        ? Outcome.pass("client certificate of liveodds.partner.tls.key-store presented to every partner host"
                                + " (contract 10: mutual TLS; probe on the partner TLS context)")
                        : Outcome.fail("client certificate configured but not presented to " + String.join(", ", missing)
                                + ": the partner did not ask for one, or accepts none issued by its CA (contract 10: mutual TLS)");
            });
        }
    }

    private void checkTokenEndpoint(PartnerExchange exchange) {
        URI endpoint = URI.create(stripSlash(partner.authUrl()) + "/oauth/token");
        JsonNode[] answer = new JsonNode[1];
        check("token-request", () -> {
            PartnerExchange.Reply reply = exchange.exchange(tokenRequest(endpoint, partner.clientSecret()));
            JsonNode json = object(reply.body());
            JsonNode accessToken = json.get("access_token");
            if (accessToken != null && accessToken.isTextual()) {
                mask.register(accessToken.asText());
            }
            if (!reply.isSuccess()) {
                return Outcome.fail("POST " + endpoint + " (client_credentials, form body) answered " + reply.describe()
                        + " (interface C: the token endpoint answers a token response)");
            }
            if (accessToken == null || !accessToken.isTextual() || accessToken.asText().isEmpty()) {
                return Outcome.fail(reply.describe() + " but no access_token string in a JSON object"
                        + " (interface: token response access_token, a string)");
            }
            answer[0] = json;
            return Outcome.pass(reply.describe() + " with an access_token, in " + reply.elapsed().toMillis()
                    + " ms (interface C: form-encoded token request, JSON token response)");
        });
        JsonNode json = answer[0];
        if (json == null) {
            skip("token-type", "the token request failed");
            skip("token-expires-in", "the token request failed");
        } else {
            check("token-type", () -> tokenType(json.get("token_type")));
            check("token-expires-in", () -> expiresIn(json.get("expires_in")));
        }
        check("token-wrong-secret", () -> {
            PartnerExchange.Reply reply = exchange.exchange(tokenRequest(endpoint, "wrong-" + UUID.randomUUID()));
            JsonNode refused = object(reply.body()).path("access_token");
            if (refused.isTextual()) {
                mask.register(refused.asText());
            }
            String rule = " (interface: OAuth 2.0 client credentials; a wrong client_secret is refused with 400 or 401)";
            if (reply.status() == 400 || reply.status() == 401) {
                return Outcome.pass("a wrong client_secret refused with " + reply.describe() + rule);
            }
            return Outcome.fail("a wrong client_secret answered " + reply.describe()
                    + (reply.isSuccess() ? ": anyone can get a token" : "") + rule);
        });
    }

    private static Outcome tokenType(JsonNode type) {
        String rule = " (interface: token response token_type Bearer, any case)";
        if (type != null && type.isTextual() && "bearer".equalsIgnoreCase(type.asText())) {
            return Outcome.pass("token_type \"" + type.asText() + "\"" + rule);
        }
        return Outcome.fail(type == null ? "token_type missing" + rule : "token_type is " + shortJson(type) + rule);
    }

    private static Outcome expiresIn(JsonNode expiresIn) {
        String rule = " (interface: token response expires_in, an integer, the token lifetime in seconds)";
        if (expiresIn != null && expiresIn.isIntegralNumber() && expiresIn.asLong() > 0) {
            return Outcome.pass("expires_in " + expiresIn.asText() + rule);
        }
        if (expiresIn != null && expiresIn.isTextual() && expiresIn.asText().matches("[0-9]{1,18}") && Long.parseLong(expiresIn.asText()) > 0) {
            return Outcome.warn("expires_in is the string \"" + expiresIn.asText() + "\", not an integer (the service reads it)" + rule);
        }
        return Outcome.fail((expiresIn == null ? "expires_in missing" : "expires_in is " + shortJson(expiresIn))
                + ": the service cannot know the lifetime and renews every 60 s" + rule);
    }

    private PartnerExchange.Request tokenRequest(URI endpoint, String secret) {
        // built as the delivery's token code builds it (PartnerTokenProvider): credentials in the form body
        String form = new TokenRequest.Builder(endpoint, new ClientSecretPost(new ClientID(partner.clientId()), new Secret(secret)),
                new ClientCredentialsGrant()).customParameter("audience", partner.audience()).build().toHTTPRequest().getBody();
        return PartnerExchange.Request.post(endpoint, Map.of("Content-Type", "application/x-www-form-urlencoded"), form);
    }

    /** The token the pushes carry, from the delivery's own token code, as a run gets it. */
    private void obtainDeliveryToken(PartnerExchange exchange) {
        PartnerTokenProvider provider = new PartnerTokenProvider();
        provider.setCamelContext(exchange.context());
        provider.setAuthUrl(partner.authUrl());
        provider.setClientId(partner.clientId());
        provider.setClientSecret(partner.clientSecret());
        provider.setAudience(partner.audience());
        provider.setHealth(new PartnerHealth());
        provider.setSecretMask(mask);
        try {
            token = provider.token();
        } catch (TokenUnavailableException e) {
            tokenProblem = "the service's token code got no token (" + mask.mask(e.getMessage()) + ")";
        } finally {
            provider.stop();
        }
    }

    private Outcome pushOfType(PartnerExchange exchange, String type) {
        String key = messageId();
        PartnerExchange.Reply reply = exchange.exchange(push(type, "Bearer " + token, key, body(type, key)));
        String rule = " (interface B: POST .../" + match + "/" + type + " answers 202 Accepted)";
        if (reply.status() == 202) {
            return Outcome.pass("HTTP 202 in " + reply.elapsed().toMillis() + " ms" + rule);
        }
        if (reply.isSuccess()) {
            return Outcome.warn(reply.describe() + ", not 202 (the service takes any 2xx as delivered)" + rule);
        }
        return Outcome.fail(answered(reply) + rule);
    }

    private Outcome refusal(PartnerExchange exchange, String authorization, String what) {
        String key = messageId();
        PartnerExchange.Request request = authorization == null
                // as the partner client sends a bare POST: Content-Type only (the interface's required headers less Authorization)
                ? PartnerExchange.Request.post(pushUrl("odds"), Map.of("Content-Type", "application/json"), body("odds", key))
                : push("odds", authorization, key, body("odds", key));
        PartnerExchange.Reply reply = exchange.exchange(request);
        String rule = " (interface, Authentication 5: a valid bearer token on every inbound request; refused with 401)";
        if (reply.status() == 401) {
            return Outcome.pass(what + " refused with HTTP 401" + rule);
        }
        if (reply.status() == 403) {
            return Outcome.warn(what + " refused with HTTP 403, not 401 (the service renews its token on 401 only)" + rule);
        }
        return Outcome.fail(what + (reply.isSuccess() ? " was accepted with " + reply.describe() : ": " + answered(reply)) + rule);
    }

    private Outcome repeatedKey(PartnerExchange exchange) {
        String key = messageId();
        String body = body("odds", key);
        PartnerExchange.Reply first = exchange.exchange(push("odds", "Bearer " + token, key, body));
        PartnerExchange.Reply second = exchange.exchange(push("odds", "Bearer " + token, key, body));
        String rule = " (contract 4 and 7: the same Idempotency-Key on every retry, at least once: a repeat is accepted)";
        if (first.isSuccess() && second.isSuccess()) {
            return Outcome.pass("the same push twice answered " + first.status() + ", then " + second.status() + rule);
        }
        return Outcome.fail("the same push twice answered " + first.describe() + ", then " + answered(second) + rule);
    }

    private Outcome persistentConnections() throws IOException {
        String firstKey = messageId();
        String secondKey = messageId();
        ConnectionProbe.KeepAlive kept = probe().twoRequests(pushUrl("heartbeat"),
                Map.entry(pushHeaders("Bearer " + token, firstKey), body("heartbeat", firstKey)),
                Map.entry(pushHeaders("Bearer " + token, secondKey), body("heartbeat", secondKey)));
        String rule = " (contract 10: the partner connection is pooled; HTTP/1.1 persistent connections; probe on a socket of its own)";
        if (kept.closedBecause() == null) {
            return Outcome.pass("two heartbeats on one connection, answered " + kept.firstStatus() + " and " + kept.secondStatus() + rule);
        }
        return Outcome.warn("not kept: " + kept.closedBecause() + "; every push pays a new connection" + rule);
    }

    private Outcome latency(PartnerExchange exchange) {
        List<Long> millis = new ArrayList<>();
        int refused = 0;
        String stopped = "";
        for (int i = 0; i < latencyPushes && stopped.isEmpty(); i++) {
            String key = messageId();
            PartnerExchange.Reply reply = exchange.exchange(push("heartbeat", "Bearer " + token, key, body("heartbeat", key)));
            millis.add(reply.elapsed().toMillis());
            refused += reply.isSuccess() ? 0 : 1;
            if (reply.status() == 0) {
                // a partner that does not answer would hold the check for N time-outs
                stopped = ", stopped at " + reply.describe();
            }
        }
        millis.sort(Long::compare);
        return Outcome.pass("p50 " + percentile(millis, 50) + " ms, p99 " + percentile(millis, 99) + " ms over " + millis.size()
                + " heartbeats" + (refused == 0 ? "" : ", " + refused + " not accepted") + stopped
                + " (reported only: the interface sets no time limit; contract 10 bounds an attempt by liveodds.delivery.timeout)");
    }

    /** Nearest rank. */
    static long percentile(List<Long> sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }

    private PartnerExchange.Request push(String type, String authorization, String key, String body) {
        return PartnerExchange.Request.post(pushUrl(type), pushHeaders(authorization, key), body);
    }

    private static Map<String, String> pushHeaders(String authorization, String key) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", authorization);
        headers.put("Content-Type", "application/json");
        headers.put("Idempotency-Key", key);
        return headers;
    }

    private URI pushUrl(String type) {
        return URI.create(stripSlash(partner.baseUrl()) + "/v1/liveodds/" + partner.id() + "/" + match + "/" + type);
    }

    /** A message of each type as the service pushes it (contract 3 and 4), marked as the check's own. */
    private String body(String type, String messageId) {
        String head = "{\"message_id\":\"" + messageId + "\",\"message_type\":\"" + type + "\",";
        String metadata = "\"timestamp\":\"" + Timestamps.now() + "\",\"fight_metadata\":{\"fight_id_sr\":\"" + match + "\"}";
        return switch (type) {
            case "odds" -> head + "\"odds_type\":\"delta\"," + metadata
                    + ",\"markets\":[{\"id\":\"1\",\"status\":1,\"outcomes\":[{\"id\":\"1\",\"odds\":1.85,\"active\":true}]}]}";
            case "market_settlement" -> head + metadata + ",\"markets\":[{\"id\":\"1\",\"outcomes\":[{\"id\":\"1\",\"result\":\"win\"}]}]}";
            case "rollback_settlement" -> head + metadata + ",\"markets\":[{\"id\":\"1\"}]}";
            default -> head + metadata + "}";
        };
    }

    private static String messageId() {
        return "check-partner-" + UUID.randomUUID();
    }

    private ConnectionProbe probe() {
        return new ConnectionProbe(sslContext, partner.timeout());
    }

    private void withToken(String name, Check body) {
        if (token != null) {
            check(name, body);
        } else if (failed("token-request") || failed("token-type")) {
            skip(name, tokenProblem);
        } else {
            results.add(new CheckResult(name, Verdict.FAIL, tokenProblem, Duration.ZERO));
        }
    }

    private void check(String name, Check body) {
        long started = System.nanoTime();
        Outcome outcome;
        try {
            outcome = body.run();
        } catch (Exception | LinkageError e) {
            outcome = Outcome.fail("check could not run: " + why(e));
        }
        results.add(new CheckResult(name, outcome.verdict(), printable(mask.mask(outcome.detail())),
                Duration.ofNanos(System.nanoTime() - started)));
    }

    private void skip(String name, String because) {
        results.add(new CheckResult(name, Verdict.SKIP, "not run: " + because, Duration.ZERO));
    }

    private boolean failed(String name) {
        return results.stream().anyMatch(r -> r.check().equals(name) && r.verdict() == Verdict.FAIL);
    }

    /** The status and the start of the answer body, masked before it is cut (a cut secret would slip past the mask). */
    private String answered(PartnerExchange.Reply reply) {
        if (reply.status() == 0 || reply.body() == null || reply.body().isBlank()) {
            return reply.describe();
        }
        String body = mask.mask(reply.body()).strip();
        return reply.describe() + " " + (body.length() > QUOTED ? body.substring(0, QUOTED) + "..." : body);
    }

    /** The body as a JSON object; an empty one when it is none, so a check names the field it misses. */
    private static JsonNode object(String body) {
        try {
            JsonNode json = JSON.readTree(body == null ? "" : body);
            return json.isObject() ? json : JSON.createObjectNode();
        } catch (JsonProcessingException notJson) {
            return JSON.createObjectNode();
        }
    }

    private static String shortJson(JsonNode value) {
        String text = value.toString();
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }

    /** The exception's own words (they name the setting at fault) and its root cause's, when they add something. */
    private static String why(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
        String rootMessage = root.getMessage();
        return root == e || rootMessage == null || text.contains(rootMessage) ? text : text + " (" + rootMessage + ")";
    }

    /** One line: no control characters from a partner's answer reach the terminal or the report. */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) || c == 0x2028 || c == 0x2029 ? ' ' : c));
        return out.toString();
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @FunctionalInterface
    private interface Check {
        Outcome run() throws Exception;
    }

    private record Outcome(Verdict verdict, String detail) {
        static Outcome pass(String detail) {
            return new Outcome(Verdict.PASS, detail);
        }

        static Outcome warn(String detail) {
            return new Outcome(Verdict.WARN, detail);
        }

        static Outcome fail(String detail) {
            return new Outcome(Verdict.FAIL, detail);
        }
    }
}
