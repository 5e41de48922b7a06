package com.liveodds.push.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The bearer check alone: static tokens, and JWTs against a real JWKS served on loopback. */
class BearerAuthenticatorTest {

    private static final String ISSUER = "https://auth.partner.test/";
    private static final String AUDIENCE = "liveodds-fixtures";

    private static RSAKey signingKey;
    private static HttpServer jwks;

    @BeforeAll
    static void serveJwks() throws Exception {
        signingKey = new RSAKeyGenerator(2048).keyID("k1").generate();
        byte[] body = new JWKSet(signingKey.toPublicJWK()).toString().getBytes(StandardCharsets.UTF_8);
        jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        jwks.createContext("/.well-known/jwks.json", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        jwks.start();
    }

    @AfterAll
    static void stopJwks() {
        jwks.stop(0);
    }

    static String jwksUrl() {
        return "http://127.0.0.1:" + jwks.getAddress().getPort() + "/.well-known/jwks.json";
    }

    /** A JWT authenticator as the service builds one from its settings. */
    static BearerAuthenticator jwtAuthenticator() {
        BearerAuthenticator auth = new BearerAuthenticator();
        auth.setMode("jwt");
        auth.setJwksUrl(jwksUrl());
        auth.setIssuer(ISSUER);
        auth.setAudience(AUDIENCE);
        auth.setJwksTimeout("2s");
        auth.setJwksCache("5m");
        auth.start();
        return auth;
    }

    static JWTClaimsSet.Builder validClaims() {
        return new JWTClaimsSet.Builder().issuer(ISSUER).audience(AUDIENCE).subject("partner-42")
                .issueTime(new Date()).expirationTime(Date.from(Instant.now().plusSeconds(300)));
    }

    static String sign(RSAKey key, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    /** A token the JWKS of this test accepts, for the tests that go over HTTP. */
    static String validJwt() throws Exception {
        return sign(signingKey, validClaims().build());
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


    private final BearerAuthenticator jwtAuth = jwtAuthenticator();

    @Test
    void acceptsATokenSignedByAKeyOfTheJwks() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + validJwt())).isTrue();
    }

    @Test
    void refusesATokenSignedByAnotherKeyWithTheSameKeyId() throws Exception {
        RSAKey impostor = new RSAKeyGenerator(2048).keyID("k1").generate();
        assertThat(jwtAuth.isAuthorized("Bearer " + sign(impostor, validClaims().build()))).isFalse();
    }

    @Test
    void refusesATokenSignedByAKeyTheJwksDoesNotHave() throws Exception {
        RSAKey stranger = new RSAKeyGenerator(2048).keyID("k-unknown").generate();
        assertThat(jwtAuth.isAuthorized("Bearer " + sign(stranger, validClaims().build()))).isFalse();
    }

    @Test
    void refusesExpiredTokensAndTokensWithoutExpiry() throws Exception {
        String expired = sign(signingKey, validClaims().expirationTime(Date.from(Instant.now().minusSeconds(600))).build());
        String endless = sign(signingKey, validClaims().expirationTime(null).build());
        assertThat(jwtAuth.isAuthorized("Bearer " + expired)).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + endless)).isFalse();
    }

    @Test
    void refusesWrongOrMissingAudience() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + sign(signingKey, validClaims().audience("someone-else").build()))).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + sign(signingKey, validClaims().audience((String) null).build()))).isFalse();
    }

    @Test
    void refusesWrongOrMissingIssuer() throws Exception {
        assertThat(jwtAuth.isAuthorized("Bearer " + sign(signingKey, validClaims().issuer("https://evil.test/").build()))).isFalse();
        assertThat(jwtAuth.isAuthorized("Bearer " + sign(signingKey, validClaims().issuer(null).build()))).isFalse();
    }

    @Test
    void refusesMalformedAndUnsignedTokens() throws Exception {
        String unsigned = new PlainJWT(validClaims().build()).serialize();
        String valid = validJwt();
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
        String expired = sign(signingKey, validClaims().expirationTime(Date.from(Instant.now().minusSeconds(600))).build());
        ListAppender<ILoggingEvent> logs = capture();
        try {
            jwtAuth.isAuthorized("Bearer " + expired);
            jwtAuth.isAuthorized("Bearer " + sign(signingKey, validClaims().audience("someone-else").build()));
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
        missing.setJwksUrl(jwksUrl());
        missing.setIssuer(ISSUER);
        assertThatThrownBy(missing::start).hasMessageContaining("liveodds.fixtures.auth.audience");
        missing.setAudience(AUDIENCE);
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
}
