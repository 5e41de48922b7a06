package com.liveodds.push.token;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import com.liveodds.push.settings.Durations;
import com.nimbusds.oauth2.sdk.ClientCredentialsGrant;
import com.nimbusds.oauth2.sdk.ErrorObject;
import com.nimbusds.oauth2.sdk.ParseException;
import com.nimbusds.oauth2.sdk.TokenRequest;
import com.nimbusds.oauth2.sdk.TokenResponse;
import com.nimbusds.oauth2.sdk.auth.ClientSecretPost;
import com.nimbusds.oauth2.sdk.auth.Secret;
import com.nimbusds.oauth2.sdk.http.HTTPRequest;
import com.nimbusds.oauth2.sdk.http.HTTPResponse;
import com.nimbusds.oauth2.sdk.id.ClientID;
import com.nimbusds.oauth2.sdk.token.AccessToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partner's OAuth 2.0 client-credentials token, shared by every push. Fetched on first need,
 * renewed in the background once less than min(refresh margin, half its lifetime) remains, one fetch in flight at
 * a time, and never handed out past its expiry. A 401 from the partner invalidates the token it rejected.
 */
public class PartnerTokenProvider {

    private static final Logger LOG = LoggerFactory.getLogger(PartnerTokenProvider.class);
    /** A token this close to expiry is not handed out: it could expire on the wire. */
    private static final Duration EXPIRY_SAFETY = Duration.ofSeconds(1);
    /** Used when the token response has no expires_in: short enough to be safe with any real lifetime. */
    private static final Duration UNKNOWN_LIFETIME = Duration.ofSeconds(60);
    private static final Duration MIN_RETRY = Duration.ofMillis(500);
    private static final Duration MAX_RETRY = Duration.ofSeconds(30);

    private URI tokenEndpoint;
    private String clientId;
    private String clientSecret;
    private String audience;
    private Duration refreshMargin = Duration.ofSeconds(60);
    private int httpTimeoutMillis = 10_000;
    private final Clock clock;
    private final ReentrantLock fetchLock = new ReentrantLock();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "partner-token-renewal");
        t.setDaemon(true);
        return t;
    });

    private volatile CachedToken cached;
    private volatile Instant lastFailureAt = Instant.MIN;
    private volatile String lastFailure;
    private ScheduledFuture<?> renewal;
    private int consecutiveFailures;
    private com.liveodds.push.ops.SecretMask secretMask = new com.liveodds.push.ops.SecretMask();

    public PartnerTokenProvider() {
        this.clock = Clock.systemUTC();
    }

    public PartnerTokenProvider(URI tokenEndpoint, String clientId, String clientSecret, String audience,
                                Duration refreshMargin, Duration httpTimeout, Clock clock) {
        this.tokenEndpoint = tokenEndpoint;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.audience = audience;
        this.refreshMargin = refreshMargin;
        this.httpTimeoutMillis = (int) Math.max(1, httpTimeout.toMillis());
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

    public void setRefreshMargin(String refreshMargin) {
        this.refreshMargin = Durations.parse(refreshMargin);
    }

    public void setHttpTimeout(String httpTimeout) {
        this.httpTimeoutMillis = (int) Math.max(1, Durations.parse(httpTimeout).toMillis());
    }

    /** Every token handed out is registered there, so a partner echoing it never puts it into a dead letter. */
    public void setSecretMask(com.liveodds.push.ops.SecretMask secretMask) {
        this.secretMask = secretMask;
    }

    public void stop() {
        scheduler.shutdownNow();
    }

    /** The value for the {@code Authorization} header. */
    public String authorizationHeader() {
        return "Bearer " + token();
    }

    /** A valid token, fetching one (once for all callers) when there is none. */
    public String token() {
        CachedToken current = cached;
        if (isUsable(current)) {
            return current.value();
        }
        fetchLock.lock();
        try {
            current = cached;
            if (isUsable(current)) {
                return current.value();
            }
            // callers that queued behind a failed fetch do not hammer a failing token endpoint
            if (Duration.between(lastFailureAt, clock.instant()).compareTo(MIN_RETRY) < 0) {
                throw new TokenUnavailableException("partner token unavailable: " + lastFailure);
            }
            return fetch().value();
        } finally {
            fetchLock.unlock();
        }
    }

    /** The partner answered 401 with this token: forget it (unless a newer one has replaced it already). */
    public void invalidate(String rejectedToken) {
        CachedToken current = cached;
        if (current != null && current.value().equals(rejectedToken)) {
            cached = null;
            LOG.warn("Partner rejected the current token (401); fetching a new one");
        }
    }

    /** When the current token expires, for monitoring; null when there is none. */
    public Instant expiresAt() {
        CachedToken current = cached;
        return current == null ? null : current.expiresAt();
    }

    private boolean isUsable(CachedToken token) {
        return token != null && clock.instant().plus(EXPIRY_SAFETY).isBefore(token.expiresAt());
    }

    private CachedToken fetch() {
        Instant requestedAt = clock.instant();
        try {
            ClientSecretPost clientAuth = new ClientSecretPost(new ClientID(clientId), new Secret(clientSecret));
            TokenRequest request = new TokenRequest.Builder(tokenEndpoint, clientAuth, new ClientCredentialsGrant())
                    .customParameter("audience", audience)
                    .build();
            HTTPRequest http = request.toHTTPRequest();
            http.setConnectTimeout(httpTimeoutMillis);
            http.setReadTimeout(httpTimeoutMillis);
            HTTPResponse response = http.send();
            TokenResponse tokenResponse = parse(response);
            if (!tokenResponse.indicatesSuccess()) {
                ErrorObject error = tokenResponse.toErrorResponse().getErrorObject();
                throw failure("token endpoint answered HTTP " + response.getStatusCode()
                        + (error.getCode() != null ? " " + error.getCode() : ""), null);
            }
            AccessToken accessToken = tokenResponse.toSuccessResponse().getTokens().getAccessToken();
            Duration lifetime = accessToken.getLifetime() > 0 ? Duration.ofSeconds(accessToken.getLifetime()) : UNKNOWN_LIFETIME;
            secretMask.register(accessToken.getValue());
            CachedToken token = new CachedToken(accessToken.getValue(), requestedAt.plus(lifetime));
            cached = token;
            consecutiveFailures = 0;
            lastFailure = null;
            Duration margin = refreshMargin.compareTo(lifetime.dividedBy(2)) < 0 ? refreshMargin : lifetime.dividedBy(2);
            Duration renewIn = lifetime.minus(margin);
            LOG.info("Partner token obtained from {} (valid {}s, renewal in {}s)", tokenEndpoint, lifetime.toSeconds(), renewIn.toSeconds());
            scheduleRenewal(renewIn);
            return token;
        } catch (IOException e) {
            throw failure("token endpoint unreachable: " + e.getClass().getSimpleName()
                    + (e.getMessage() != null ? " " + e.getMessage() : ""), e);
        }
    }

    private static TokenResponse parse(HTTPResponse response) {
        try {
            return TokenResponse.parse(response);
        } catch (ParseException e) {
            throw new TokenUnavailableException("token endpoint answered HTTP " + response.getStatusCode()
                    + " with no valid OAuth token response");
        }
    }

    private TokenUnavailableException failure(String why, Throwable cause) {
        lastFailureAt = clock.instant();
        lastFailure = why;
        LOG.warn("Partner token request to {} failed: {}", tokenEndpoint, why);
        return cause == null ? new TokenUnavailableException("partner token unavailable: " + why)
                : new TokenUnavailableException("partner token unavailable: " + why, cause);
    }

    private synchronized void scheduleRenewal(Duration delay) {
        if (scheduler.isShutdown()) {
            return;
        }
        if (renewal != null) {
            renewal.cancel(false);
        }
        renewal = scheduler.schedule(this::renew, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    }

    private void renew() {
        fetchLock.lock();
        try {
            fetch();
        } catch (RuntimeException e) {
            consecutiveFailures++;
            long backoff = Math.min(MAX_RETRY.toMillis(), MIN_RETRY.toMillis() << Math.min(consecutiveFailures, 10));
            scheduleRenewal(Duration.ofMillis(backoff));
        } finally {
            fetchLock.unlock();
        }
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
