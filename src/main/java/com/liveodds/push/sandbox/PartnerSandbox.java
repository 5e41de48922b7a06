package com.liveodds.push.sandbox;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.liveodds.push.ops.LogSafe;
import com.liveodds.push.settings.PartnerSettings;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.component.platform.http.vertx.HttpMessage;
import org.apache.camel.spi.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stand-in partner for the embedded default: an OAuth client-credentials token endpoint issuing short-lived
 * tokens, and a push receiver that answers 202 only to a valid, unexpired token. Strict on purpose, so the demo
 * exercises the real authentication path. It stands in for every partner of the deployment (the embedded default's
 * sandbox-a and sandbox-b, or those of liveodds.partners / liveodds.partner.* when the sandbox is asked for): each
 * partner's client credentials get a token, and that token is good for that partner's id only.
 */
public class PartnerSandbox implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger("liveodds.sandbox");
    private static final List<String> CREDENTIALS = List.of("client_id", "client_secret");

    private CamelContext context;
    /** Client id → the partner it stands for. */
    private volatile Map<String, PartnerSettings> clients = Map.of();
    private Duration tokenLifetime = Duration.ofSeconds(30);
    /** Token → when it expires and which partner it was issued to. */
    private final Map<String, Issued> issued = new ConcurrentHashMap<>();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong tokensIssued = new AtomicLong();
    private final AtomicLong unauthorized = new AtomicLong();

    public void setTokenLifetime(Duration tokenLifetime) {
        this.tokenLifetime = tokenLifetime;
    }

    /** Runs when beans.yaml loads: the partners of the settings are the sandbox's clients. */
    public void start() {
        PropertiesComponent properties = context.getPropertiesComponent();
        Map<String, PartnerSettings> byClient = new LinkedHashMap<>();
        for (PartnerSettings partner : PartnerSettings.all(key -> properties.resolveProperty(key).orElse(null))) {
            byClient.putIfAbsent(partner.clientId(), partner);
        }
        clients = Map.copyOf(byClient);
    }

    /**
     * {@code POST /oauth/token} as it came over HTTP. Like a strict OAuth server, the client credentials are taken
     * from the form body only: in the query string (where they end up in access logs) or as headers they are
     * refused with 400 {@code invalid_request}.
     */
    public Answer tokenRequest(Exchange exchange) {
        HttpServerRequest request = exchange.getMessage(HttpMessage.class).getRequest();
        Map<String, List<String>> query = new QueryStringDecoder(request.uri()).parameters();
        for (String field : CREDENTIALS) {
            if (query.containsKey(field) || request.headers().contains(field)) {
                return new Answer(400, "{\"error\":\"invalid_request\",\"error_description\":\"client credentials belong in the form body\"}");
            }
        }
        MultiMap form = request.formAttributes();
        return token(form.get("grant_type"), form.get("client_id"), form.get("client_secret"), form.get("audience"));
    }

    /** {@code POST /oauth/token}: the fields of the form-encoded token request. */
    public Answer token(String grantType, String formClientId, String formClientSecret, String audience) {
        if (!"client_credentials".equals(grantType)) {
            return new Answer(400, "{\"error\":\"unsupported_grant_type\"}");
        }
        PartnerSettings partner = formClientId == null ? null : clients.get(formClientId);
        if (partner == null || !partner.clientSecret().equals(formClientSecret)) {
            return new Answer(401, "{\"error\":\"invalid_client\"}");
        }
        if (audience == null || audience.isBlank()) {
            return new Answer(400, "{\"error\":\"invalid_request\",\"error_description\":\"audience is required\"}");
        }
        String token = "sbx-" + UUID.randomUUID();
        Instant now = Instant.now();
        issued.put(token, new Issued(now.plus(tokenLifetime), partner));
        tokensIssued.incrementAndGet();
        issued.values().removeIf(earlier -> earlier.expiry().isBefore(now.minus(tokenLifetime)));
        return new Answer(200, "{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":"
                + tokenLifetime.toSeconds() + "}");
    }

    /** {@code POST /v1/liveodds/{partnerId}/match:{id}/{type}}: one push, with a token of that partner. */
    public Answer push(String authorization, String pathPartnerId, String match, String type, String body) {
        String token = authorization != null && authorization.startsWith("Bearer ") ? authorization.substring(7) : null;
        Issued grant = token == null ? null : issued.get(token);
        if (grant == null || !Instant.now().isBefore(grant.expiry())) {
            unauthorized.incrementAndGet();
            LOG.warn("sandbox partner <- {} {}: 401 ({} token)", LogSafe.escape(type), LogSafe.escape(match), token == null ? "no" : grant == null ? "unknown" : "expired");
            return new Answer(401, "{\"error\":\"invalid_token\"}");
        }
        PartnerSettings partner = grant.partner();
        if (!partner.id().equals(pathPartnerId) || match == null || !match.matches("match:\\d+")) {
            return new Answer(404, "{\"error\":\"unknown partner or match\"}");
        }
        accepted.incrementAndGet();
        LOG.info("sandbox partner {} <- {} {} ({} bytes): 202", partner.label(), LogSafe.escape(type), match, body == null ? 0 : body.length());
        return new Answer(202, "{\"status\":\"accepted\"}");
    }

    public long acceptedCount() {
        return accepted.get();
    }

    public long issuedCount() {
        return tokensIssued.get();
    }

    public long unauthorizedCount() {
        return unauthorized.get();
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    private record Issued(Instant expiry, PartnerSettings partner) {
    }

    /** Status and JSON body of a sandbox answer. */
    public record Answer(int status, String json) {
    }
}
