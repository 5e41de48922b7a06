package com.liveodds.push.partner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.PartnerCalls;
import com.liveodds.push.support.RawPartner;
import com.liveodds.push.token.PartnerTokenProvider;
import com.liveodds.push.token.TokenUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS to a partner whose CA, server certificate (SAN ip:127.0.0.1) and our client certificate are made here
 * with keytool, served by a raw TLS socket server that requires a client certificate: the token request and the
 * pushes both present it, and without it the handshake fails as a TLS error that never names a password.
 */
class PartnerTlsTest {

    private static final String TRUST_PASSWORD = "trust-pw-4711";
    private static final String CLIENT_PASSWORD = "client-pw-0815";
    private static final String SERVER_PASSWORD = "server-password";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @TempDir
    static Path dir;

    private RawPartner server;
    private final List<String> clientCertificates = new CopyOnWriteArrayList<>();
    private final AtomicInteger pushes = new AtomicInteger();
    private volatile int pushStatus = 202;
    private PartnerCalls client;
    private PartnerTokenProvider tokens;
    private final PartnerHealth health = new PartnerHealth();

    @BeforeAll
    static void makeCertificates() throws Exception {
        keytool("-genkeypair", "-alias", "ca", "-dname", "CN=Partner Test CA", "-ext", "bc:c", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-keystore", "ca.p12", "-storetype", "PKCS12", "-storepass", "ca-password");
        keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-storepass", "ca-password", "-file", "ca.pem");
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "trust.p12", "-storetype", "PKCS12",
                "-storepass", TRUST_PASSWORD);
        signed("server", "CN=127.0.0.1", SERVER_PASSWORD, "san=ip:127.0.0.1", "eku=serverAuth");
        signed("client", "CN=liveodds-push", CLIENT_PASSWORD, "eku=clientAuth", "ku=digitalSignature");
    }

    private static void signed(String name, String dname, String password, String... extensions) throws Exception {
        String store = name + ".p12";
        keytool("-genkeypair", "-alias", name, "-dname", dname, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-keystore", store, "-storetype", "PKCS12", "-storepass", password);
        keytool("-certreq", "-alias", name, "-keystore", store, "-storepass", password, "-file", name + ".csr");
        List<String> gencert = new java.util.ArrayList<>(List.of("-gencert", "-rfc", "-alias", "ca", "-keystore", "ca.p12",
                "-storepass", "ca-password", "-infile", name + ".csr", "-outfile", name + ".pem", "-validity", "2"));
        for (String ext : extensions) {
            gencert.add("-ext");
            gencert.add(ext);
        }
        keytool(gencert.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", store, "-storepass", password);
        keytool("-importcert", "-alias", name, "-file", name + ".pem", "-keystore", store, "-storepass", password);
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        // a short-lived JVM: no need for the optimising compiler
        command.add("-J-XX:TieredStopAtLevel=1");
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }

    @BeforeEach
    void startPartner() throws Exception {
        server = new RawPartner(serverContext(), (request, socket, out) -> {
            clientCertificates.add(((SSLSocket) socket).getSession().getPeerPrincipal().getName());
            if (request.path().startsWith("/auth/oauth/token")) {
                return RawPartner.json(200, "{\"access_token\":\"mtls-token\",\"token_type\":\"Bearer\",\"expires_in\":3600}")
                        .answer(request, socket, out);
            }
            pushes.incrementAndGet();
            return pushStatus == 503 ? RawPartner.status(503, "Retry-After: 1").answer(request, socket, out)
                    : RawPartner.status(pushStatus).answer(request, socket, out);
        });
    }

    @AfterEach
    void stop() {
        if (tokens != null) {
            tokens.stop();
        }
        if (client != null) {
            client.close();
        }
        server.close();
    }

    private String url(String path) {
        return server.baseUrl() + path;
    }

    private PartnerAnswer push(String authorization) {
        return client.post(url("/partner/v1/liveodds/42/match:1/odds"), authorization, "m-1", "{}".getBytes());
    }

    private void connect(PartnerTls tls) {
        client = new PartnerCalls(tls, TIMEOUT, 4);
        tokens = new PartnerTokenProvider();
        tokens.setAuthUrl(url("/auth"));
        tokens.setClientId("push-client");
        tokens.setClientSecret("client-secret-value");
        tokens.setAudience(url("/partner"));
        tokens.setCamelContext(client.context());
        tokens.setHealth(health);
    }

    @Test
    void tokenRequestAndPushesPresentTheClientCertificate() {
        connect(new PartnerTls(dir.resolve("trust.p12").toString(), TRUST_PASSWORD, dir.resolve("client.p12").toString(),
                CLIENT_PASSWORD));

        String token = tokens.token();
        PartnerAnswer answer = push("Bearer " + token);

        assertThat(token).isEqualTo("mtls-token");
        assertThat(answer.status()).isEqualTo(202);
        assertThat(clientCertificates).containsExactly("CN=liveodds-push", "CN=liveodds-push");
    }

    @Test
    void withoutTheClientCertificateTheHandshakeFailsAsATlsErrorNamingNoPassword() {
        try (CapturedLogs logs = CapturedLogs.all()) {
            connect(new PartnerTls(dir.resolve("trust.p12").toString(), TRUST_PASSWORD, "", ""));

            PartnerAnswer answer = push("Bearer x");

            assertThat(answer.status()).isZero();
            assertThat(answer.error()).containsAnyOf("TLS", "connection failed").doesNotContain(TRUST_PASSWORD);
            // TLS 1.3: the server refuses the missing certificate after the client's handshake has ended, so the client
            // meets either the server's alert (a TLS error) or, writing a larger request first, a broken connection
            assertThatThrownBy(tokens::token).isInstanceOf(TokenUnavailableException.class)
                    .message().containsAnyOf("TLS", "connection failed")
                    .doesNotContain(TRUST_PASSWORD).doesNotContain("client-secret-value");
            assertThat(pushes).hasValue(0);
            assertThat(health.partner().lastError()).as("the token request's failure reached the readiness check").startsWith("token request");
            assertThat(logs.messages()).noneMatch(m -> m.contains(TRUST_PASSWORD) || m.contains(CLIENT_PASSWORD)
                    || m.contains("client-secret-value"));
        }
    }

    @Test
    void anUntrustedPartnerIsATlsError() {
        // the JVM's trust store does not know the test CA
        connect(new PartnerTls("", "", dir.resolve("client.p12").toString(), CLIENT_PASSWORD));
        PartnerAnswer answer = push("Bearer x");
        assertThat(answer.status()).isZero();
        assertThat(answer.error()).contains("TLS");
    }

    @Test
    void a503OverHttpsIsOneRequest() {
        pushStatus = 503;
        connect(new PartnerTls(dir.resolve("trust.p12").toString(), TRUST_PASSWORD, dir.resolve("client.p12").toString(),
                CLIENT_PASSWORD));

        PartnerAnswer answer = push("Bearer x");

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.retryAfter()).isEqualTo("1");
        // anything the client resent by itself would arrive at once
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> pushes.get() == 1);
    }

    @Test
    void aWrongStorePasswordStopsStartUpNamingTheSettingNotThePassword() {
        PartnerTls tls = new PartnerTls(dir.resolve("trust.p12").toString(), "not-the-password", "", "");
        assertThatThrownBy(tls::start).hasMessageContaining("liveodds.partner.tls.trust-store")
                .hasMessageNotContaining("not-the-password");
    }

    @Test
    void theTokenProviderAloneUsesTheSameTimeOutAndTls() {
        // the plain constructor: its own client with the JVM's trust, which does not know the test CA
        tokens = new PartnerTokenProvider(URI.create(url("/auth/oauth/token")), "c", "s", "a", Duration.ofSeconds(60), TIMEOUT,
                Clock.systemUTC());
        assertThatThrownBy(tokens::token).isInstanceOf(TokenUnavailableException.class).hasMessageContaining("TLS");
    }

    private static SSLContext serverContext() throws Exception {
        KeyStore keys = KeyStore.getInstance(dir.resolve("server.p12").toFile(), SERVER_PASSWORD.toCharArray());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, SERVER_PASSWORD.toCharArray());
        KeyStore trust = KeyStore.getInstance(dir.resolve("trust.p12").toFile(), TRUST_PASSWORD.toCharArray());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }
}
