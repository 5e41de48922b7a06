package com.liveodds.push.ops;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Knows every secret of the service and masks it wherever it appears in text meant for people (dead letters):
 * the static ones from the settings (client secret, fixtures and admin tokens, JMS password, TLS store passwords) and
 * every access token the partner token provider handed out, since a partner may echo the {@code Authorization}
 * header in an error answer. Values shorter than {@value #MIN_LENGTH} characters are not masked: masking "1" would
 * garble every record, and such a value is no secret.
 */
public class SecretMask {

    public static final String MASK = "***";
    static final int MIN_LENGTH = 4;
    /** Access tokens remembered: a few hours of rotations even with short-lived tokens. */
    private static final int MAX_TOKENS = 512;
    private static final int CUT_PREFIX = 4;

    private final Set<String> configured = Collections.synchronizedSet(new LinkedHashSet<>());
    private final Set<String> tokens = Collections.synchronizedSet(new LinkedHashSet<>());

    public void setClientSecret(String secret) {
        add(secret);
    }

    /** Comma-separated, as {@code liveodds.fixtures.auth.tokens} and {@code liveodds.admin.tokens} are written. */
    public void setFixturesTokens(String list) {
        addList(list);
    }

    public void setAdminTokens(String list) {
        addList(list);
    }

    /** {@code liveodds.source.http.tokens}, comma-separated. */
    public void setIngestTokens(String list) {
        addList(list);
    }

    public void setJmsPassword(String password) {
        add(password);
    }

    public void setTrustStorePassword(String password) {
        add(password);
    }

    public void setKeyStorePassword(String password) {
        add(password);
    }

    /** An access token the partner issued: masked from now on. */
    public void register(String accessToken) {
        if (accessToken == null || accessToken.length() < MIN_LENGTH) {
            return;
        }
        synchronized (tokens) {
            tokens.remove(accessToken);
            tokens.add(accessToken);
            if (tokens.size() > MAX_TOKENS) {
                tokens.remove(tokens.iterator().next());
            }
        }
    }

    public String mask(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String masked = text;
        List<String> secrets = secrets();
        for (String secret : secrets) {
            if (masked.contains(secret)) {
                masked = masked.replace(secret, MASK);
            }
        }
        return maskCutTail(masked, secrets);
    }

    /**
     * A text cut to a length (the 4 KiB kept of a partner's answer) can end in the first characters of a secret, which
     * no whole-secret match finds: a tail of {@value #CUT_PREFIX} characters or more that starts a secret is masked.
     */
    private static String maskCutTail(String text, List<String> secrets) {
        for (String secret : secrets) {
            for (int n = Math.min(secret.length() - 1, text.length()); n >= CUT_PREFIX; n--) {
                if (text.regionMatches(text.length() - n, secret, 0, n)) {
                    return text.substring(0, text.length() - n) + MASK;
                }
            }
        }
        return text;
    }

    /** The same on raw bytes (a body that is not UTF-8 is kept as bytes): each secret's UTF-8 form is replaced. */
    public byte[] mask(byte[] bytes) {
        byte[] masked = bytes;
        for (String secret : secrets()) {
            masked = replace(masked, secret.getBytes(StandardCharsets.UTF_8), MASK.getBytes(StandardCharsets.US_ASCII));
        }
        return masked;
    }

    private List<String> secrets() {
        List<String> all = new ArrayList<>();
        synchronized (configured) {
            all.addAll(configured);
        }
        synchronized (tokens) {
            all.addAll(tokens);
        }
        // longest first, so a secret that contains another is masked whole
        all.sort((a, b) -> Integer.compare(b.length(), a.length()));
        return all;
    }

    private void addList(String list) {
        if (list != null) {
            Arrays.stream(list.split(",")).map(String::trim).forEach(this::add);
        }
    }

    private void add(String secret) {
        if (secret != null && secret.trim().length() >= MIN_LENGTH) {
            configured.add(secret.trim());
        }
    }

    private static byte[] replace(byte[] in, byte[] target, byte[] with) {
        int at = indexOf(in, target, 0);
        if (at < 0) {
            return in;
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(in.length);
        int from = 0;
        while (at >= 0) {
            out.write(in, from, at - from);
            out.write(with, 0, with.length);
            from = at + target.length;
            at = indexOf(in, target, from);
        }
        out.write(in, from, in.length - from);
        return out.toByteArray();
    }

    private static int indexOf(byte[] in, byte[] target, int from) {
        outer:
        for (int i = from; i <= in.length - target.length; i++) {
            for (int j = 0; j < target.length; j++) {
                if (in[i + j] != target[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
