package com.liveodds.push.token;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.ops.SecretMask;
import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.partner.PartnerTls;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.id.ClientID;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partner's OAuth 2.0 client-credentials token, shared by every push. Fetched on first need,
 * renewed in the background once less than min(refresh margin, half its lifetime) remains, one fetch in flight at
 * a time, and never handed out past its expiry. A 401 from the partner invalidates the token it rejected.
 * The request is a form POST ({@code client_id} and {@code client_secret} in the body, never HTTP Basic) on the bundle's
 * camel-http component {@value #COMPONENT} (same TLS, same whole-attempt time-out, answer read up to 64 KiB, one request
 * per attempt); each outcome is reported to the {@code partner} readiness check.
 */
public class PartnerTokenProvider implements CamelContextAware, Expression {

    /** The camel-http component of every request to the partner (routes/beans.yaml). */
    public static final String COMPONENT = "liveoddsHttp";

    private static final Logger LOG = LoggerFactory.getLogger(PartnerTokenProvider.class);
    /** A token this close to expiry is not handed out: it could expire on the wire. */
    private static final Duration EXPIRY_SAFETY = Duration.ofSeconds(1);
    /** Used when the token response has no usable expires_in: short enough to be safe with any real lifetime. */
    private static final Duration UNKNOWN_LIFETIME = Duration.ofSeconds(60);
    /** Contract section 10: however large expires_in is. */
    private static final Duration MAX_LIFETIME = Duration.ofHours(24);
    private static final Duration MIN_RETRY = Duration.ofMillis(500);
    private static final Duration MAX_RETRY = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** An OAuth error code worth naming in a log (RFC 6749 codes are short snake case). */
    private static final Pattern ERROR_CODE = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private URI tokenEndpoint;
    private String clientId;
    private String clientSecret;
    private String audience;
    private String component = COMPONENT;
    private Duration refreshMargin = Duration.ofSeconds(60);
    private CamelContext camelContext;
    /** Whether {@link #camelContext} was made here (and is stopped here) rather than given. */
    private boolean ownContext;
    private ProducerTemplate template;
    private PartnerHealth health = new PartnerHealth();
    private final Clock clock;
    /** The fetches' and renewals' one thread, from the CamelContext's ExecutorServiceManager at the first fetch. */
    private ScheduledExecutorService scheduler;
    private boolean stopped;

    private volatile CachedToken cached;
    private volatile Instant lastFailureAt = Instant.MIN;
    private volatile String lastFailure;
    /** The one fetch in flight, or null; guarded by this. */
    private CompletableFuture<CachedToken> inFlight;
    private ScheduledFuture<?> renewal;
    private int consecutiveFailures;
    private SecretMask secretMask = new SecretMask();

    public PartnerTokenProvider() {
        this.clock = Clock.systemUTC();
    }

    /** Plain use and tests: a CamelContext of its own with a {@value #COMPONENT} of the JVM's TLS and this time-out. */
    public PartnerTokenProvider(URI tokenEndpoint, String clientId, String clientSecret, String audience,
                                Duration refreshMargin, Duration httpTimeout, Clock clock) {
        this.tokenEndpoint = tokenEndpoint;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.audience = audience;
        this.refreshMargin = refreshMargin;
        DefaultCamelContext own = new DefaultCamelContext();
        own.addComponent(COMPONENT, new PartnerHttp(new PartnerTls(), httpTimeout, 1).component());
        own.start();
        this.camelContext = own;
        this.ownContext = true;
        this.clock = clock;
    }

    /** {@code {auth_url}}: the token endpoint is {@code {auth_url}/oauth/token}. */
    public void setAuthUrl(String authUrl) {
        this.tokenEndpoint = URI.create(stripSlash(authUrl) + "/oauth/token");
    }

    public void setClientId(String clientId) {
        this.clientId = clientId;
    }

    public void setClientSecret(String clientSecret) {
        this.clientSecret = clientSecret;
    }

    public void setAudience(String audience) {
        this.audience = audience;
    }

    /** The camel-http component of this partner's requests ({@value #COMPONENT}, or one per partner of a list). */
    public void setComponent(String component) {
        this.component = component;
    }

    public void setRefreshMargin(Duration refreshMargin) {
        this.refreshMargin = refreshMargin;
    }

    /** Where {@value #COMPONENT} is: the partner connection's TLS and time-out apply to the token request too. */
    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    /** Every token handed out is registered there, so a partner echoing it never puts it into a dead letter. */
    public void setSecretMask(SecretMask secretMask) {
        this.secretMask = secretMask;
    }

    /** Told of every token request's outcome and of the token's expiry. */
    public void setHealth(PartnerHealth health) {
        this.health = health;
    }

    public void stop() {
        synchronized (this) {
            stopped = true;
            if (scheduler != null) {
                camelContext.getExecutorServiceManager().shutdownNow(scheduler);
            }
            if (template != null) {
                template.stop();
            }
            if (ownContext) {
                camelContext.stop();
            }
        }
    }

    /** The value for the {@code Authorization} header. */
    public String authorizationHeader() {
        return "Bearer " + token();
    }

    /**
     * A valid token, fetching one (once for all callers) when there is none; blocks for at most the client's time-out.
     *
     * @throws TokenUnavailableException when none can be had
     */
    public String token() {
        try {
            return tokenAsync().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof TokenUnavailableException unavailable) {
                throw unavailable;
            }
            throw new TokenUnavailableException("partner token unavailable: " + e.getCause(), e.getCause());
        }
    }

    /**
     * {@link #token()} as the push route's expression ({@code setVariable} with {@code ref:}): the bean language would
     * copy the exchange and wait on the copy for every push.
     */
    @Override
    public <T> T evaluate(Exchange exchange, Class<T> type) {
        return exchange.getContext().getTypeConverter().convertTo(type, exchange, token());
    }

    /**
     * A valid token without holding a thread: completes at once when one is cached, else with the one fetch in flight
     * (shared by every caller); fails with {@link TokenUnavailableException}.
     */
    public CompletableFuture<String> tokenAsync() {
        CachedToken current = cached;
        if (isUsable(current)) {
            return CompletableFuture.completedFuture(current.value());
        }
        return shared(false).thenApply(CachedToken::value);
    }

    /** The partner answered 401 with this token: forget it (unless a newer one has replaced it already). */
    public void invalidate(String rejectedToken) {
        CachedToken current = cached;
        if (current != null && current.value().equals(rejectedToken)) {
            cached = null;
            LOG.warn("Partner rejected the current token (401); fetching a new one");
        }
    }

    /**
     * Life left of the current token, for monitoring: zero once it has expired with its renewal late; null when
     * there is none.
     */
    public Duration lifeLeft() {
        CachedToken current = cached;
        if (current == null) {
            return null;
        }
        Duration left = Duration.between(clock.instant(), current.expiresAt());
        return left.isNegative() ? Duration.ZERO : left;
    }

    private boolean isUsable(CachedToken token) {
        return token != null && clock.instant().plus(EXPIRY_SAFETY).isBefore(token.expiresAt());
    }

    /** The fetch in flight, or a new one; a caller that is not the renewal gets a cached token or a recent failure. */
    private synchronized CompletableFuture<CachedToken> shared(boolean renewing) {
        // a fetch that has just completed is no longer in flight, even before its own clean-up below has run
        if (inFlight != null && !inFlight.isDone()) {
            return inFlight;
        }
        if (!renewing) {
            CachedToken current = cached;
            if (isUsable(current)) {
                return CompletableFuture.completedFuture(current);
            }
            // callers right behind a failed fetch do not hammer a failing token endpoint
            if (Duration.between(lastFailureAt, clock.instant()).compareTo(MIN_RETRY) < 0) {
                return CompletableFuture.failedFuture(new TokenUnavailableException("partner token unavailable: " + lastFailure));
            }
        }
        CompletableFuture<CachedToken> fetch;
        try {
            fetch = fetch();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e instanceof TokenUnavailableException ? e
                    : failure("token request not sendable: " + e.getClass().getSimpleName()));
        }
        inFlight = fetch;
        fetch.whenComplete((token, error) -> {
            synchronized (this) {
                if (inFlight == fetch) {
                    inFlight = null;
                }
            }
        });
        return fetch;
    }

    /** The one request, on the renewal thread (a fetch is one at a time anyway), bounded by the partner time-out. */
    private CompletableFuture<CachedToken> fetch() {
        ProducerTemplate producer = template();
        String uri = component + ":" + tokenEndpoint + "?httpMethod=POST&throwExceptionOnFailure=false";
        ClientSecretPost clientAuth = new ClientSecretPost(new ClientID(clientId), new Secret(clientSecret));
        byte[] form = new TokenRequest.Builder(tokenEndpoint, clientAuth, new ClientCredentialsGrant())
                .customParameter("audience", audience)
                .build().toHTTPRequest().getBody().getBytes(StandardCharsets.UTF_8);
        return CompletableFuture.supplyAsync(() -> {
            Instant requestedAt = clock.instant();
            Exchange sent = producer.send(uri, exchange -> {
                exchange.getMessage().setHeader(Exchange.CONTENT_TYPE, "application/x-www-form-urlencoded");
                exchange.getMessage().setBody(form);
            });
            return accept(PartnerAnswer.of(sent, sent.getException(), PartnerHttp.READ_LIMIT), requestedAt);
        }, scheduler());
    }

    private CachedToken accept(PartnerAnswer answer, Instant requestedAt) {
        if (answer.status() == 0) {
            throw failure("token endpoint unreachable: " + answer.error());
        }
        JsonNode json = parse(answer.body());
        if (!answer.isSuccess()) {
            throw failure("token endpoint answered HTTP " + answer.status() + errorCode(json));
        }
        JsonNode accessToken = json == null ? null : json.get("access_token");
        JsonNode type = json == null ? null : json.get("token_type");
        if (accessToken == null || !accessToken.isTextual() || accessToken.asText().isEmpty()
                || (type != null && !"bearer".equalsIgnoreCase(type.asText()))) {
            throw failure("token endpoint answered HTTP " + answer.status() + " with no valid OAuth bearer token response");
        }
        Duration lifetime = lifetime(json.get("expires_in"));
        CachedToken token = new CachedToken(accessToken.asText(), requestedAt.plus(lifetime));
        secretMask.register(token.value());
        cached = token;
        lastFailure = null;
        health.succeeded();
        Duration margin = refreshMargin.compareTo(lifetime.dividedBy(2)) < 0 ? refreshMargin : lifetime.dividedBy(2);
        Duration renewIn = lifetime.minus(margin);
        LOG.info("Partner token obtained from {} (valid {}s, renewal in {}s)", tokenEndpoint, lifetime.toSeconds(), renewIn.toSeconds());
        scheduleRenewal(renewIn);
        return token;
    }

    /**
     * {@code expires_in} in seconds, never an error: a number or a numeric string, capped at 24 h; absent, zero,
     * negative or not a number gives a 60 s lifetime.
     */
    static Duration lifetime(JsonNode expiresIn) {
        double seconds;
        if (expiresIn != null && expiresIn.isNumber()) {
            seconds = expiresIn.doubleValue();
        } else if (expiresIn != null && expiresIn.isTextual()) {
            try {
                seconds = Double.parseDouble(expiresIn.asText().trim());
            } catch (NumberFormatException notANumber) {
                return UNKNOWN_LIFETIME;
            }
        } else {
            return UNKNOWN_LIFETIME;
        }
        if (!(seconds > 0)) {
            return UNKNOWN_LIFETIME;
        }
        if (seconds >= MAX_LIFETIME.toSeconds()) {
            return MAX_LIFETIME;
        }
        return Duration.ofMillis((long) (seconds * 1000));
    }

    private static JsonNode parse(String body) {
        if (body == null) {
            return null;
        }
        try {
            JsonNode json = JSON.readTree(body);
            return json != null && json.isObject() ? json : null;
        } catch (JsonProcessingException notJson) {
            return null;
        }
    }

    /** The OAuth {@code error} code when it looks like one and is not the secret echoed back. */
    private String errorCode(JsonNode json) {
        JsonNode error = json == null ? null : json.get("error");
        if (error == null || !error.isTextual()) {
            return "";
        }
        String code = error.asText();
        boolean echoesSecret = clientSecret != null && !clientSecret.isEmpty() && code.contains(clientSecret);
        return ERROR_CODE.matcher(code).matches() && !echoesSecret ? " " + code : "";
    }

    private TokenUnavailableException failure(String why) {
        lastFailureAt = clock.instant();
        lastFailure = why;
        health.failed("token request: " + why);
        LOG.warn("Partner token request to {} failed: {}", tokenEndpoint, why);
        return new TokenUnavailableException("partner token unavailable: " + why);
    }

    private synchronized ScheduledExecutorService scheduler() {
        if (scheduler == null) {
            scheduler = camelContext.getExecutorServiceManager().newSingleThreadScheduledExecutor(this, "partner-token-renewal");
        }
        return scheduler;
    }

    private synchronized void scheduleRenewal(Duration delay) {
        if (stopped) {
            return;
        }
        if (renewal != null) {
            renewal.cancel(false);
        }
        renewal = scheduler().schedule(this::renew, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    }

    private void renew() {
        shared(true).whenComplete((token, error) -> {
            if (error == null) {
                synchronized (this) {
                    consecutiveFailures = 0;
                }
                return;
            }
            long backoff;
            synchronized (this) {
                consecutiveFailures++;
                backoff = Math.min(MAX_RETRY.toMillis(), MIN_RETRY.toMillis() << Math.min(consecutiveFailures, 10));
            }
            scheduleRenewal(Duration.ofMillis(backoff));
        });
    }

    private synchronized ProducerTemplate template() {
        if (template == null) {
            if (camelContext == null) {
                throw new IllegalStateException("no CamelContext: the token request goes through " + COMPONENT);
            }
            template = camelContext.createProducerTemplate();
        }
        return template;
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private record CachedToken(String value, Instant expiresAt) {
        @Override
        public String toString() {
            return "token(expires " + expiresAt + ")";
        }
    }
}
