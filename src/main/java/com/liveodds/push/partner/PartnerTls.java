package com.liveodds.push.partner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The one {@link SSLContext} of every request to the partner (token, pushes, heartbeats), from
 * {@code liveodds.partner.tls.*}: a trust store for a private CA (empty: the JVM's trust) and a key store with the
 * client certificate for mutual TLS (empty: none). With all four empty the JVM default context applies, which honours
 * the standard {@code javax.net.ssl.trustStore} and {@code javax.net.ssl.keyStore} system properties.
 * Stores are PKCS12 or JKS (detected); a key's password is its store's. Passwords are never logged or echoed.
 */
public class PartnerTls {

    private String trustStore = "";
    private String trustStorePassword = "";
    private String keyStore = "";
    private String keyStorePassword = "";
    private volatile SSLContext context;

    public PartnerTls() {
    }

    public PartnerTls(String trustStore, String trustStorePassword, String keyStore, String keyStorePassword) {
        setTrustStore(trustStore);
        setTrustStorePassword(trustStorePassword);
        setKeyStore(keyStore);
        setKeyStorePassword(keyStorePassword);
    }

    public void setTrustStore(String trustStore) {
        this.trustStore = blankToEmpty(trustStore);
    }

    public void setTrustStorePassword(String trustStorePassword) {
        this.trustStorePassword = blankToEmpty(trustStorePassword);
    }

    public void setKeyStore(String keyStore) {
        this.keyStore = blankToEmpty(keyStore);
    }

    public void setKeyStorePassword(String keyStorePassword) {
        this.keyStorePassword = blankToEmpty(keyStorePassword);
    }

    /** Builds the context now, so a wrong store or password stops start-up with a line naming the setting. */
    public void start() {
        sslContext();
    }

    public SSLContext sslContext() {
        SSLContext built = context;
        if (built == null) {
            synchronized (this) {
                built = context;
                if (built == null) {
                    built = build();
                    context = built;
                }
            }
        }
        return built;
    }

    private SSLContext build() {
        try {
            if (trustStore.isEmpty() && keyStore.isEmpty()) {
                return SSLContext.getDefault();
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            // null: the JVM's trust (javax.net.ssl.trustStore or cacerts)
            trust.init(trustStore.isEmpty() ? null : load(trustStore, trustStorePassword, "liveodds.partner.tls.trust-store"));
            KeyManager[] keys = null;
            if (!keyStore.isEmpty()) {
                KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(load(keyStore, keyStorePassword, "liveodds.partner.tls.key-store"), keyStorePassword.toCharArray());
                keys = factory.getKeyManagers();
            }
            TrustManager[] trustManagers = trust.getTrustManagers();
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(keys, trustManagers, null);
            return tls;
        } catch (GeneralSecurityException e) {
            // the message of a security exception never holds the password, only what went wrong
            throw new IllegalStateException("liveodds.partner.tls: cannot set up TLS to the partner: " + e.getMessage(), e);
        }
    }

    private static KeyStore load(String file, String password, String setting) {
        Path path = Path.of(file);
        if (!Files.isRegularFile(path)) {
            throw new IllegalStateException(setting + ": no such file " + path.toAbsolutePath());
        }
        try {
            // KeyStore.getInstance(File, ...) detects PKCS12 and JKS
            return KeyStore.getInstance(path.toFile(), password.toCharArray());
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(setting + ": cannot read " + path.toAbsolutePath()
                    + " (wrong " + setting + "-password, or not a PKCS12 or JKS store)", e);
        }
    }

    private static String blankToEmpty(String value) {
        return value == null ? "" : value.trim();
    }
}
