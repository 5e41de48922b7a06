package com.liveodds.push.settings;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Works out, from the user's settings, the few values the routes need that are not written down: whether the
 * embedded partner sandbox runs (only when no partner setting is given at all), which source is active, and the
 * audience default. A real partner configuration that lacks one of its keys is refused here, by name, so the
 * service never starts half-configured.
 */
public final class StartupSettings {

    public static final List<String> PARTNER_KEYS = List.of(
            "liveodds.partner.id",
            "liveodds.partner.base-url",
            "liveodds.partner.auth-url",
            "liveodds.partner.client-id",
            "liveodds.partner.client-secret");

    public static final List<String> SOURCES = List.of("file", "jms", "http", "kafka");

    /** Written as durations or sizes: a typo stops start-up with one line naming the key, not a stack trace. */
    static final List<String> DURATION_KEYS = List.of(
            "liveodds.token.refresh-margin", "liveodds.partner.down-after",
            "liveodds.source.file.poll-delay", "liveodds.source.jms.recovery-interval", "liveodds.source.http.retry-after",
            "liveodds.source.kafka.session-timeout", "liveodds.source.kafka.poll-timeout",
            "liveodds.source.kafka.max-poll-interval", "liveodds.source.kafka.revoke-wait", "liveodds.source.kafka.look-back",
            "liveodds.heartbeat.interval", "liveodds.heartbeat.tick", "liveodds.match.live-for", "liveodds.upstream.max-silence",
            "liveodds.delivery.timeout", "liveodds.delivery.max-elapsed",
            "liveodds.delivery.backoff.initial", "liveodds.delivery.backoff.max",
            "liveodds.fixtures.auth.jwks-cache", "liveodds.fixtures.auth.jwks-timeout", "liveodds.fixtures.auth.clock-skew",
            "liveodds.sandbox.token-lifetime", "liveodds.demo.period", "liveodds.demo.alive-every");
    /** Written as sizes ({@code 512KB}, {@code 1MB}); each is handed to the beans in bytes as {@code <key>-bytes}. */
    static final Map<String, String> SIZE_KEYS = Map.of("liveodds.source.file.max-size", "1MB",
            "liveodds.source.http.max-body", "1MB", "liveodds.source.http.max-receiving", "32MB");

    public static final String SANDBOX_PARTNER_ID = "1";
    public static final String SANDBOX_CLIENT_ID = "sandbox-client";
    public static final String SANDBOX_CLIENT_SECRET = "sandbox-secret";
    /** Derived: the sandbox generated the fixtures/admin token (written to liveodds.sandbox.token-file, never logged). */
    public static final String TOKEN_GENERATED = "liveodds.sandbox.token-generated";

    private StartupSettings() {
    }

    /**
     * @param lookup the effective value of a setting (system property, environment variable or file), or null
     * @return settings to add on top of the user's ones
     */
    public static Map<String, String> derive(Function<String, String> lookup) {
        checkNotation(lookup);
        Map<String, String> derived = new LinkedHashMap<>();
        boolean partnerList = PartnerSettings.isList(lookup);
        boolean anyPartnerKey = partnerList || PARTNER_KEYS.stream().anyMatch(k -> isSet(lookup.apply(k)));
        String sandboxSetting = lookup.apply("liveodds.sandbox.enabled");
        boolean sandbox = isSet(sandboxSetting) && !"auto".equalsIgnoreCase(sandboxSetting.trim())
                ? Boolean.parseBoolean(sandboxSetting.trim())
                : !anyPartnerKey;

        if (sandbox) {
            // the embedded default is a demo on this machine: neither port is open to the network unless asked for
            putDefault(derived, lookup, "camel.server.host", "127.0.0.1");
            putDefault(derived, lookup, "camel.management.host", "127.0.0.1");
            String port = valueOr(lookup.apply("camel.server.port"), "8080");
            String sandboxUrl = "http://127.0.0.1:" + port + "/sandbox";
            putDefault(derived, lookup, "liveodds.partner.id", SANDBOX_PARTNER_ID);
            putDefault(derived, lookup, "liveodds.partner.base-url", sandboxUrl);
            putDefault(derived, lookup, "liveodds.partner.auth-url", sandboxUrl);
            putDefault(derived, lookup, "liveodds.partner.client-id", SANDBOX_CLIENT_ID);
            putDefault(derived, lookup, "liveodds.partner.client-secret", SANDBOX_CLIENT_SECRET);
            if ("static".equalsIgnoreCase(valueOr(lookup.apply("liveodds.fixtures.auth.mode"), "static"))
                    && !isSet(lookup.apply("liveodds.fixtures.auth.tokens"))) {
                derived.put("liveodds.fixtures.auth.mode", "static");
                derived.put("liveodds.fixtures.auth.tokens", "sandbox-" + randomHex(12));
                derived.put(TOKEN_GENERATED, "true");
            }
            if (!isSet(lookup.apply("liveodds.admin.tokens"))) {
                derived.put("liveodds.admin.tokens", valueOr(derived.get("liveodds.fixtures.auth.tokens"),
                        "sandbox-admin-" + randomHex(12)));
            }
        } else if (partnerList) {
            // every partner's settings checked now: a missing or invalid one stops start-up naming its key
            PartnerSettings.all(lookup);
        } else {
            for (String key : PARTNER_KEYS) {
                if (!isSet(lookup.apply(key))) {
                    throw new MissingSettingException(key);
                }
            }
        }
        derived.put("liveodds.sandbox.enabled", Boolean.toString(sandbox));

        String baseUrl = valueOr(derived.get("liveodds.partner.base-url"), lookup.apply("liveodds.partner.base-url"));
        if (!partnerList && !isSet(lookup.apply("liveodds.partner.audience"))) {
            derived.put("liveodds.partner.audience", baseUrl);
        }

        String source = valueOr(lookup.apply("liveodds.source"), "file").trim().toLowerCase(Locale.ROOT);
        if (!SOURCES.contains(source)) {
            throw new IllegalArgumentException("liveodds.source must be one of " + SOURCES + ", not '" + source + "'");
        }
        // camel-kafka takes these in milliseconds; the settings are written as durations like every other
        derived.put("liveodds.source.kafka.session-timeout-ms", millis(lookup, "liveodds.source.kafka.session-timeout", "15s"));
        derived.put("liveodds.source.kafka.max-poll-interval-ms", millis(lookup, "liveodds.source.kafka.max-poll-interval", "11m"));
        derived.put("liveodds.source.kafka.poll-timeout-ms", millis(lookup, "liveodds.source.kafka.poll-timeout", "500ms"));
        // the beans take sizes as a byte count
        SIZE_KEYS.forEach((key, fallback) ->
                derived.put(key + "-bytes", Long.toString(Durations.parseBytes(valueOr(lookup.apply(key), fallback)))));
        derived.put("liveodds.demo.enabled", Boolean.toString(sandbox && "file".equals(source)
                && !"false".equalsIgnoreCase(valueOr(lookup.apply("liveodds.demo.producer"), "true"))));
        return derived;
    }

    private static void checkNotation(Function<String, String> lookup) {
        for (String key : DURATION_KEYS) {
            check(key, lookup.apply(key), Durations::parse);
        }
        for (String key : SIZE_KEYS.keySet()) {
            check(key, lookup.apply(key), Durations::parseBytes);
        }
    }

    private static void check(String key, String value, Function<String, ?> parser) {
        if (isSet(value) && !value.contains("{{")) {
            try {
                parser.apply(value);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + ": " + e.getMessage());
            }
        }
    }

    private static String millis(Function<String, String> lookup, String key, String fallback) {
        return Long.toString(Durations.parse(valueOr(lookup.apply(key), fallback)).toMillis());
    }

    public static boolean isSet(String value) {
        return value != null && !value.isBlank();
    }

    private static String valueOr(String value, String fallback) {
        return isSet(value) ? value : fallback;
    }

    private static void putDefault(Map<String, String> derived, Function<String, String> lookup, String key, String value) {
        if (!isSet(lookup.apply(key))) {
            derived.put(key, value);
        }
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /** A required setting is absent: the message names the key and its environment variable. */
    public static final class MissingSettingException extends IllegalStateException {
        private final String key;

        public MissingSettingException(String key) {
            super("missing required setting " + key + " (set -D" + key + "=... or environment variable "
                    + environmentName(key) + ")");
            this.key = key;
        }

        public String key() {
            return key;
        }
    }

    /** The environment variable Camel reads for a setting: upper case, dots and dashes as underscores. */
    public static String environmentName(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
}
