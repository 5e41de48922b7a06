package com.liveodds.push.auth;

import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.ParseException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.liveodds.push.settings.PartnerSettings;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.DefaultJOSEObjectTypeVerifier;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimNames;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.ConfigurableJWTProcessor;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Header;
import org.apache.camel.spi.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether an {@code Authorization} header carries an acceptable bearer token, for the fixtures API, the
 * HTTP source and the operator endpoints. {@code static}: one of the configured tokens; {@code jwt}: a JWT signed by a
 * key of the JWKS URL, unexpired ({@code exp} required), from the configured issuer and for the configured audience.
 * Bound to partners (the fixtures API, contract 16), a token also belongs to one partner: static, it is one of that
 * partner's fixtures tokens; jwt, with several partners, its partner claim ({@code azp} by default) is that partner's
 * id. Neither the configured nor the presented tokens are ever logged.
 */
public class BearerAuthenticator implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(BearerAuthenticator.class);
    private static final String SCHEME = "bearer ";
    private static final int JWKS_SIZE_LIMIT = 256 * 1024;
    private static final JOSEObjectType AT_JWT = new JOSEObjectType("at+jwt");

    private String mode = "static";
    private String tokens = "";
    private String jwksUrl;
    private String issuer;
    private String audience;
    private Duration jwksTimeout = Duration.ofSeconds(2);
    private Duration jwksCache = Duration.ofMinutes(5);
    private Duration clockSkew = Duration.ofSeconds(30);
    private String tokensSetting = "liveodds.fixtures.auth.tokens";
    private String guards = "the fixtures API and the HTTP source";

    private boolean inUse = true;
    private boolean boundToPartners;
    private String partnerClaim = "azp";
    private CamelContext context;

    private volatile List<byte[]> staticTokenHashes = List.of();
    /** Bound to partners: partner id → the hashes of its static tokens (none in jwt mode). */
    private volatile Map<String, List<byte[]>> partnerTokens = Map.of();
    /** Bound to several partners in jwt mode: the partner claim names the partner. */
    private volatile boolean claimNamesPartner;
    private volatile ConfigurableJWTProcessor<SecurityContext> jwtProcessor;

    /** {@code static} or {@code jwt}. */
    public void setMode(String mode) {
        this.mode = mode == null ? "" : mode.trim().toLowerCase(Locale.ROOT);
    }

    /** {@code static} mode: the accepted tokens, comma-separated. */
    public void setTokens(String tokens) {
        this.tokens = tokens;
    }

    /** The setting the tokens come from, named when none is configured (never its value). */
    public void setTokensSetting(String tokensSetting) {
        this.tokensSetting = tokensSetting;
    }

    /** What this check guards, for the same warning. */
    public void setGuards(String guards) {
        this.guards = guards;
    }

    public void setJwksUrl(String jwksUrl) {
        this.jwksUrl = jwksUrl;
    }

    public void setIssuer(String issuer) {
        this.issuer = issuer;
    }

    public void setAudience(String audience) {
        this.audience = audience;
    }

    /** Connect and read time-out of one JWKS download. */
    public void setJwksTimeout(Duration jwksTimeout) {
        this.jwksTimeout = jwksTimeout;
    }

    /** How long a downloaded JWKS is used before it is fetched again (an unknown key id fetches it sooner). */
    public void setJwksCache(Duration jwksCache) {
        this.jwksCache = jwksCache;
    }

    /** How far past {@code exp} (and before {@code nbf}) a JWT is still accepted, for clocks that differ a little. */
    public void setClockSkew(Duration clockSkew) {
        this.clockSkew = clockSkew;
    }

    /** False while nothing is served with this check (the HTTP source not chosen): no warning about missing tokens. */
    public void setInUse(boolean inUse) {
        this.inUse = inUse;
    }

    /**
     * The tokens belong to the partners of the settings ({@code liveodds.partners.N.fixtures-tokens}, or
     * {@code liveodds.fixtures.auth.tokens} of the single partner) rather than to {@link #setTokens}.
     */
    public void setBoundToPartners(boolean boundToPartners) {
        this.boundToPartners = boundToPartners;
    }

    /** jwt mode with several partners: the claim that holds the partner id ({@code azp} by default). */
    public void setPartnerClaim(String partnerClaim) {
        this.partnerClaim = partnerClaim == null || partnerClaim.isBlank() ? "azp" : partnerClaim.trim();
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /** Checks the settings of the chosen mode; a mode that cannot work stops start-up with the key to set. */
    public void start() {
        if (boundToPartners) {
            bindPartners();
        }
        switch (mode) {
            case "static" -> startStatic();
            case "jwt" -> startJwt();
            default -> throw new IllegalArgumentException("liveodds.fixtures.auth.mode must be static or jwt, not '" + mode + "'");
        }
    }

    /** @param authorization the whole {@code Authorization} header, or null */
    public boolean isAuthorized(String authorization) {
        String token = bearerToken(authorization);
        if (token == null) {
            return false;
        }
        return "jwt".equals(mode) ? validJwt(token) : knownStaticToken(token);
    }

    public boolean isUnauthorized(String authorization) {
        return !isAuthorized(authorization);
    }

    /**
     * Bound to partners: whether the token, valid or not, is not one of partner {@code partnerId}'s (an id that is no
     * partner's included), so that another partner's path answers exactly as an unknown one.
     */
    public boolean isNotForPartner(@Header("Authorization") String authorization, @Header("partnerId") String partnerId) {
        List<byte[]> own = partnerId == null ? null : partnerTokens.get(partnerId);
        String token = bearerToken(authorization);
        if (token == null) {
            return true;
        }
        // the token is checked whether or not the id is a partner's: the time taken tells no id from another
        if (!"jwt".equals(mode)) {
            boolean ownToken = matches(own == null ? List.of() : own, token);
            return own == null || !ownToken;
        }
        JWTClaimsSet claims = jwtClaims(token);
        if (own == null || claims == null) {
            return true;
        }
        if (!claimNamesPartner) {
            return false;
        }
        try {
            return !partnerId.equals(claims.getStringClaim(partnerClaim));
        } catch (ParseException notAString) {
            return true;
        }
    }

    private void bindPartners() {
        PropertiesComponent properties = context.getPropertiesComponent();
        List<PartnerSettings> partners = PartnerSettings.all(key -> properties.resolveProperty(key).orElse(null));
        Map<String, List<byte[]>> byId = new LinkedHashMap<>();
        StringBuilder all = new StringBuilder();
        for (PartnerSettings partner : partners) {
            byId.put(partner.id(), hashes(partner.fixturesTokens()));
            all.append(partner.fixturesTokens()).append(',');
            if (!partner.isSingle() && "static".equals(mode) && byId.get(partner.id()).isEmpty()) {
                LOG.warn("No bearer tokens configured ({}): every request to the fixtures of partner {} is refused with 401",
                        partner.key("fixtures-tokens"), partner.name());
            }
        }
        partnerTokens = Map.copyOf(byId);
        claimNamesPartner = !partners.get(0).isSingle();
        tokens = all.toString();
    }

    /** True when a check may wait on the network (a JWKS download): callers on an event loop run it elsewhere. */
    public boolean mayBlock() {
        return "jwt".equals(mode);
    }

    private static List<byte[]> hashes(String tokens) {
        return Arrays.stream(tokens == null ? new String[0] : tokens.split(","))
                .map(String::trim).filter(t -> !t.isEmpty()).map(BearerAuthenticator::sha256).toList();
    }

    private void startStatic() {
        List<byte[]> hashes = hashes(tokens);
        staticTokenHashes = hashes;
        if (hashes.isEmpty() && (claimNamesPartner || !inUse)) {
            return;  // each partner warned for itself, or nothing to warn about
        }
        if (hashes.isEmpty()) {
            LOG.warn("No bearer tokens configured ({}): every request to {} is refused with 401", tokensSetting, guards);
        } else {
            LOG.info("Bearer check: static, {} accepted token(s)", hashes.size());
        }
    }

    private void startJwt() {
        URL url = jwksUrl(required("liveodds.fixtures.auth.jwks-url", jwksUrl));
        String requiredIssuer = required("liveodds.fixtures.auth.issuer", issuer);
        String requiredAudience = required("liveodds.fixtures.auth.audience", audience);
        int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, jwksTimeout.toMillis());
        JWKSourceBuilder<SecurityContext> builder = JWKSourceBuilder.create(url,
                new DefaultResourceRetriever(timeoutMillis, timeoutMillis, JWKS_SIZE_LIMIT));
        JWKSource<SecurityContext> keys = jwksSource(builder, jwksCache.toMillis(), timeoutMillis);
        // EdDSA is left out: Nimbus verifies it only with Google Tink, which this bundle does not ship
        Set<JWSAlgorithm> algorithms = new HashSet<>();
        algorithms.addAll(JWSAlgorithm.Family.RSA);
        algorithms.addAll(JWSAlgorithm.Family.EC);
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, keys));
        // OAuth access tokens are often typed at+jwt (RFC 9068); Nimbus alone takes only JWT or no type
        processor.setJWSTypeVerifier(new DefaultJOSEObjectTypeVerifier<>(JOSEObjectType.JWT, AT_JWT, null));
        DefaultJWTClaimsVerifier<SecurityContext> claims = new DefaultJWTClaimsVerifier<>(requiredAudience,
                new JWTClaimsSet.Builder().issuer(requiredIssuer).build(),
                Set.of(JWTClaimNames.EXPIRATION_TIME, JWTClaimNames.ISSUER, JWTClaimNames.AUDIENCE));
        claims.setMaxClockSkew((int) Math.min(Integer.MAX_VALUE, clockSkew.toSeconds()));
        processor.setJWTClaimsSetVerifier(claims);
        jwtProcessor = processor;
        LOG.info("Bearer check: JWT from issuer {} for audience {}, keys from {}", requiredIssuer, requiredAudience, url);
    }

    /**
     * Nimbus's JWKS source with our cache time: {@code 0} is no cache at all (every check downloads the JWKS, and
     * there is no rate limit without a cache); any other value works. Nimbus's defaults (refresh 30 s ahead,
     * at most one download per 30 s) are shortened to fit a short cache time instead of refusing it.
     */
    private static JWKSource<SecurityContext> jwksSource(JWKSourceBuilder<SecurityContext> builder, long cacheMillis, int timeoutMillis) {
        if (cacheMillis <= 0) {
            return builder.cache(false).refreshAheadCache(false).rateLimited(false).build();
        }
        long refreshTimeout = Math.max(1, Math.min(timeoutMillis, cacheMillis - 1));
        builder.cache(cacheMillis, refreshTimeout);
        if (JWKSourceBuilder.DEFAULT_REFRESH_AHEAD_TIME + refreshTimeout > cacheMillis) {
            builder.refreshAheadCache(false);
        }
        return (cacheMillis >= 2 ? builder.rateLimited(Math.min(JWKSourceBuilder.DEFAULT_RATE_LIMIT_MIN_INTERVAL, cacheMillis / 2))
                : builder.rateLimited(false)).build();
    }

    private boolean validJwt(String token) {
        return jwtClaims(token) != null;
    }

    /** The claims of a valid JWT, or null. */
    private JWTClaimsSet jwtClaims(String token) {
        ConfigurableJWTProcessor<SecurityContext> processor = jwtProcessor;
        if (processor == null) {
            return null;
        }
        try {
            return processor.process(token, null);
        } catch (ParseException e) {
            // the parser's message can quote a piece of what it was given: say only that it was no JWT
            LOG.debug("Bearer token refused: not a signed JWT");
            return null;
        } catch (BadJOSEException e) {
            // the failed rule only (expired, audience, issuer, signature), never the token
            LOG.debug("Bearer JWT refused: {}", e.getMessage());
            return null;
        } catch (JOSEException e) {
            LOG.warn("Bearer JWT could not be checked (JWKS unavailable?): {}", e.getMessage());
            return null;
        }
    }

    private boolean knownStaticToken(String token) {
        return matches(staticTokenHashes, token);
    }

    private static boolean matches(List<byte[]> hashes, String token) {
        byte[] presented = sha256(token);
        boolean match = false;
        // every configured token is compared, so the time taken tells nothing about which one came close
        for (byte[] accepted : hashes) {
            match |= MessageDigest.isEqual(accepted, presented);
        }
        return match;
    }

    private static String bearerToken(String authorization) {
        if (authorization == null || authorization.length() <= SCHEME.length()
                || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            return null;
        }
        String token = authorization.substring(SCHEME.length()).trim();
        return token.isEmpty() ? null : token;
    }

    private static String required(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("liveodds.fixtures.auth.mode=jwt needs " + key);
        }
        return value.trim();
    }

    private static URL jwksUrl(String text) {
        try {
            return URI.create(text).toURL();
        } catch (IllegalArgumentException | MalformedURLException e) {
            throw new IllegalStateException("liveodds.fixtures.auth.jwks-url is not a URL: '" + text + "'");
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
