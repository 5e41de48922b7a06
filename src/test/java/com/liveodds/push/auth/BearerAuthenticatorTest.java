package com.liveodds.push.auth;

import java.time.Duration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Date;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.liveodds.push.settings.Durations;
import com.liveodds.push.support.JwtIssuer;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The bearer check alone: static tokens, and JWTs against a real JWKS served on loopback. */
class BearerAuthenticatorTest {

    private static JwtIssuer issuer;

    @BeforeAll
    static void serveJwks() {
        issuer = new JwtIssuer();
    }

    @AfterAll
    static void stopJwks() {
        issuer.close();
    }

    private final BearerAuthenticator jwtAuth = jwtAuthenticator();

    private static BearerAuthenticator jwtAuthenticator() {
        BearerAuthenticator auth = new BearerAuthenticator();
        auth.setMode("jwt");
        auth.setJwksUrl(issuer.jwksUrl());
        auth.setIssuer(JwtIssuer.ISSUER);
        auth.setAudience(JwtIssuer.AUDIENCE);
        auth.setJwksTimeout(Duration.ofSeconds(2));
        auth.setJwksCache(Duration.ofMinutes(5));
        auth.start();
        return auth;
    }

    private final BearerAuthenticator staticAuth = staticAuthenticator(" alpha-token-1 ,beta-token-2,, ");

    @Test
    void acceptsEachConfiguredTokenInEitherSpellingOfTheScheme() {
        assertThat(staticAuth.isAuthorized("Bearer alpha-token-1")).isTrue();
        assertThat(staticAuth.isAuthorized("Bearer beta-token-2")).isTrue();
        assertThat(staticAuth.isAuthorized("bearer beta-token-2")).isTrue();
        assertThat(staticAuth.isUnauthorized("Bearer beta-token-2")).isFalse();
    }

    @Test
    void refusesMissingMalformedAndUnknownTokens() {
        assertThat(staticAuth.isAuthorized(null)).isFalse();
        assertThat(staticAuth.isAuthorized("")).isFalse();
        assertThat(staticAuth.isAuthorized("Bearer")).isFalse();
        assertThat(staticAuth.isAuthorized("Bearer ")).isFalse();
        assertThat(staticAuth.isAuthorized("alpha-token-1")).isFalse();
        assertThat(staticAuth.isAuthorized("Basic alpha-token-1")).isFalse();
        assertThat(staticAuth.isAuthorized("Bearer alpha-token-")).isFalse();
        assertThat(staticAuth.isAuthorized("Bearer alpha-token-1x")).isFalse();
        assertThat(staticAuth.isAuthorized("Bearer ALPHA-TOKEN-1")).isFalse();
        assertThat(staticAuth.isUnauthorized("Bearer gamma")).isTrue();
    }

    @Test
    void withNoTokensConfiguredNothingIsAccepted() {
        BearerAuthenticator none = staticAuthenticator("");
        assertThat(none.isAuthorized("Bearer ")).isFalse();
        assertThat(none.isAuthorized("Bearer anything")).isFalse();
    }

    @Test
    void withNoTokensTheWarningNamesTheSettingItWasToldItReads() {
        ListAppender<ILoggingEvent> logs = capture();
        try {
            BearerAuthenticator admin = new BearerAuthenticator();
            admin.setMode("static");
            admin.setTokens("");
            admin.setTokensSetting("liveodds.admin.tokens");
            admin.setGuards("the operator endpoints");
            admin.start();
        } finally {
            release(logs);
        }
        assertThat(logs.list).anySatisfy(e -> assertThat(e.getFormattedMessage())
                .isEqualTo("No bearer tokens configured (liveodds.admin.tokens): every request to the operator endpoints"
                        + " is refused with 401"));
    }

    @Test
    void neverLogsConfiguredOrPresentedTokens() {
        ListAppender<ILoggingEvent> logs = capture();
        try {
            BearerAuthenticator fresh = staticAuthenticator("secret-one,secret-two");
            fresh.isAuthorized("Bearer secret-one");
            fresh.isAuthorized("Bearer presented-guess");
        } finally {
            release(logs);
        }
        assertThat(logs.list).isNotEmpty().allSatisfy(e -> assertThat(e.getFormattedMessage())
                .doesNotContain("secret-one", "secret-two", "presented-guess"));
    }


    @Test
    void acceptsATokenSignedByAKeyOfTheJwks() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + issuer.token())).isTrue();
    }

    @Test
    void acceptsOAuthAccessTokensTypedAtJwtButNoOtherType() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + typed("at+jwt"))).isTrue();
        assertThat(jwtAuth.isAuthorized("Bearer " + typed("JWT"))).isTrue();
        assertThat(jwtAuth.isAuthorized("Bearer " + typed("logout+jwt"))).isFalse();
    }

    private static String typed(String type) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("k1").type(new JOSEObjectType(type)).build(),
                JwtIssuer.validClaims().build());
        jwt.sign(new RSASSASigner(issuer.key()));
        return jwt.serialize();
    }

    @Test
    void refusesATokenSignedByAnotherKeyWithTheSameKeyId() throws Exception {
        RSAKey impostor = JwtIssuer.newKey("k1");
        assertThat(jwtAuth.isAuthorized("Bearer " + JwtIssuer.sign(impostor, JwtIssuer.validClaims().build()))).isFalse();
    }

    @Test
    void refusesATokenSignedByAKeyTheJwksDoesNotHave() throws Exception {
        RSAKey stranger = JwtIssuer.newKey("k-unknown");
        assertThat(jwtAuth.isAuthorized("Bearer " + JwtIssuer.sign(stranger, JwtIssuer.validClaims().build()))).isFalse();
    }

    @Test
    void refusesExpiredTokensAndTokensWithoutExpiry() throws Exception {
        String expired = issuer.sign(JwtIssuer.validClaims().expirationTime(Date.from(Instant.now().minusSeconds(600))).build());
        String endless = issuer.sign(JwtIssuer.validClaims().expirationTime(null).build());
        assertThat(jwtAuth.isAuthorized("Bearer " + expired)).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + endless)).isFalse();
    }

    @Test
    void refusesWrongOrMissingAudience() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + issuer.sign(JwtIssuer.validClaims().audience("someone-else").build()))).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + issuer.sign(JwtIssuer.validClaims().audience((String) null).build()))).isFalse();
    }

    @Test
    void refusesWrongOrMissingIssuer() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + issuer.sign(JwtIssuer.validClaims().issuer("https://evil.test/").build()))).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + issuer.sign(JwtIssuer.validClaims().issuer(null).build()))).isFalse();
    }

    @Test
    void refusesMalformedAndUnsignedTokens() throws Exception {
        String unsigned = new PlainJWT(JwtIssuer.validClaims().build()).serialize();
        String valid = issuer.token();
        String tampered = valid.substring(0, valid.lastIndexOf('.') + 1) + "AAAA" + valid.substring(valid.lastIndexOf('.') + 5);
        assertThat(jwtAuth.isAuthorized("Bearer " + unsigned)).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + tampered)).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer not.a.jwt")).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer garbage")).isFalse();
        assertThat(jwtAuth.isAuthorized(valid)).isFalse();
        assertThat(jwtAuth.isAuthorized(null)).isFalse();
    }

    @Test
    void neverLogsPresentedTokens() throws Exception {
        String expired = issuer.sign(JwtIssuer.validClaims().expirationTime(Date.from(Instant.now().minusSeconds(600))).build());
        ListAppender<ILoggingEvent> logs = capture();
        try {
            jwtAuth.isAuthorized("Bearer " + expired);
            jwtAuth.isAuthorized("Bearer " + issuer.sign(JwtIssuer.validClaims().audience("someone-else").build()));
        } finally {
            release(logs);
        }
        assertThat(logs.list).isNotEmpty().allSatisfy(e -> assertThat(e.getFormattedMessage())
                .doesNotContain(expired.substring(expired.lastIndexOf('.') + 1)).doesNotContain(expired.substring(0, 20)));
    }

    @Test
    void incompleteSettingsStopStartUpNamingTheKey() {
        BearerAuthenticator missing = new BearerAuthenticator();
        missing.setMode("jwt");
        missing.setJwksUrl(issuer.jwksUrl());
        missing.setIssuer(JwtIssuer.ISSUER);
        assertThatThrownBy(missing::start).hasMessageContaining("liveodds.fixtures.auth.audience");
        missing.setAudience(JwtIssuer.AUDIENCE);
        missing.setJwksUrl("");
        assertThatThrownBy(missing::start).hasMessageContaining("liveodds.fixtures.auth.jwks-url");
        BearerAuthenticator unknownMode = new BearerAuthenticator();
        unknownMode.setMode("basic");
        assertThatThrownBy(unknownMode::start).hasMessageContaining("liveodds.fixtures.auth.mode");
    }

    static BearerAuthenticator staticAuthenticator(String tokens) {
        BearerAuthenticator auth = new BearerAuthenticator();
        auth.setMode("static");
        auth.setTokens(tokens);
        auth.start();
        return auth;
    }

    private static ListAppender<ILoggingEvent> capture() {
        Logger logger = (Logger) LoggerFactory.getLogger(BearerAuthenticator.class);
        logger.setLevel(Level.DEBUG);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        return appender;
    }

    private static void release(ListAppender<ILoggingEvent> appender) {
        Logger logger = (Logger) LoggerFactory.getLogger(BearerAuthenticator.class);
        logger.detachAppender(appender);
        logger.setLevel(null);
    }

    @Test
    void everyJwksCacheTimeWorksAndZeroMeansNoCache() {
        for (String cache : new String[] {"0", "1ms", "500ms", "1s", "10s", "32s", "33s", "5m", "24h"}) {
            BearerAuthenticator auth = jwtAuthenticator(cache, "30s");
            assertThat(auth.isAuthorized("Bearer " + issuer.token())).as("jwks-cache=" + cache).isTrue();
        }
    }

    @Test
    void theClockSkewIsSettableAndThirtySecondsByDefault() {
        String expired20s = issuer.sign(JwtIssuer.validClaims().expirationTime(Date.from(Instant.now().minusSeconds(20))).build());
        String expired45s = issuer.sign(JwtIssuer.validClaims().expirationTime(Date.from(Instant.now().minusSeconds(45))).build());
        String expired90s = issuer.sign(JwtIssuer.validClaims().expirationTime(Date.from(Instant.now().minusSeconds(90))).build());
        assertThat(jwtAuth.isAuthorized("Bearer " + expired20s)).as("default 30s").isTrue();
        assertThat(jwtAuth.isAuthorized("Bearer " + expired45s)).as("default 30s, not Nimbus' 60s").isFalse();
        BearerAuthenticator strict = jwtAuthenticator("5m", "0");
        assertThat(strict.isAuthorized("Bearer " + expired20s)).isFalse();
        assertThat(strict.isAuthorized("Bearer " + issuer.token())).isTrue();
        BearerAuthenticator lenient = jwtAuthenticator("5m", "2m");
        assertThat(lenient.isAuthorized("Bearer " + expired90s)).isTrue();
    }

    private static BearerAuthenticator jwtAuthenticator(String jwksCache, String clockSkew) {
        BearerAuthenticator auth = new BearerAuthenticator();
        auth.setMode("jwt");
        auth.setJwksUrl(issuer.jwksUrl());
        auth.setIssuer(JwtIssuer.ISSUER);
        auth.setAudience(JwtIssuer.AUDIENCE);
        auth.setJwksTimeout(Duration.ofSeconds(2));
        auth.setJwksCache(Durations.parse(jwksCache));
        auth.setClockSkew(Durations.parse(clockSkew));
        auth.start();
        return auth;
    }
}
