package com.liveodds.push.settings;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
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
            "liveodds.token.refresh-margin", "liveodds.partner.down-after", "liveodds.partner.pause-after",
            "liveodds.source.file.poll-delay", "liveodds.source.jms.recovery-interval", "liveodds.source.http.retry-after",
            "liveodds.source.kafka.session-timeout", "liveodds.source.kafka.poll-timeout",
            "liveodds.source.kafka.max-poll-interval", "liveodds.source.kafka.revoke-wait", "liveodds.source.kafka.look-back",
            "liveodds.heartbeat.interval", "liveodds.heartbeat.tick", "liveodds.match.live-for", "liveodds.upstream.max-silence",
            "liveodds.delivery.timeout", "liveodds.delivery.max-elapsed",
            "liveodds.delivery.backoff.initial", "liveodds.delivery.backoff.max",
            "liveodds.fixtures.auth.jwks-cache", "liveodds.fixtures.auth.jwks-timeout", "liveodds.fixtures.auth.clock-skew",
            "liveodds.sandbox.token-lifetime", "liveodds.demo.period", "liveodds.demo.alive-every",
            "liveodds.recovery.retention");
    /** Written as sizes ({@code 512KB}, {@code 1MB}); each is handed to the beans in bytes as {@code <key>-bytes}. */
    static final Map<String, String> SIZE_KEYS = Map.of("liveodds.source.file.max-size", "1MB",
            "liveodds.source.http.max-body", "1MB", "liveodds.source.http.max-receiving", "32MB",
            "liveodds.recovery.max-bytes", "16MB", "liveodds.delivery.queue-bytes", "48MB");

    /**
     * The file source's batch (liveodds.source.file.max-per-poll): below 100 a backlog is listed again for every few
     * files, above 10,000 a listing's exchanges alone take tens of MiB of the heap.
     */
    public static final int FILE_BATCH_LEAST = 100;
    public static final int FILE_BATCH_MOST = 10_000;
    /** Written as whole numbers, each with the least it may be. */
    static final Map<String, Integer> COUNT_KEYS = Map.ofEntries(Map.entry("liveodds.delivery.max-in-flight", 1),
            Map.entry("liveodds.delivery.queue-size", 1), Map.entry("liveodds.source.http.max-in-flight", 1),
            Map.entry("liveodds.source.file.max-per-poll", FILE_BATCH_LEAST), Map.entry("liveodds.source.file.read-per-poll", 1),
            Map.entry("liveodds.source.jms.consumers", 1), Map.entry("liveodds.source.kafka.consumers", 1),
            Map.entry("liveodds.source.kafka.max-poll-records", 1), Map.entry("liveodds.source.kafka.look-back-records", 0),
            Map.entry("liveodds.recovery.max-requests", 1), Map.entry("liveodds.partner.api.max-concurrent", 1),
            Map.entry("liveodds.partner.api.max-requests", 1), Map.entry("liveodds.dead-letter.max-per-partner", 1));
    /** Written as whole numbers with a largest too: each key's largest (its least is in {@link #COUNT_KEYS}). */
    static final Map<String, Integer> COUNT_MOST = Map.of("liveodds.source.file.max-per-poll", FILE_BATCH_MOST,
            "liveodds.source.file.read-per-poll", FILE_BATCH_MOST);
    /** Written as true or false. */
    static final List<String> FLAG_KEYS = List.of("liveodds.delivery.supersede", "liveodds.demo.producer",
            "liveodds.tracing.enabled");

    public static final String SANDBOX_PARTNER_ID = "1";
    public static final String SANDBOX_CLIENT_ID = "sandbox-client";
    public static final String SANDBOX_CLIENT_SECRET = "sandbox-secret";
    /**
     * sandbox-b's booking, under liveodds.home: a part of the demo card's matches. Not in the repository: made from
     * {@link #SANDBOX_B_BOOKING_TEMPLATE} at the first start, so that booking through the API (which rewrites it) leaves
     * the checkout clean.
     */
    public static final String SANDBOX_B_BOOKING = "data/sandbox/booking-b.txt";
    public static final String SANDBOX_B_BOOKING_TEMPLATE = "data/sandbox/booking-b.template.txt";
    /**
     * The embedded default's two partners (contract 16), so that a newcomer sees the fan-out and the booking at work:
     * sandbox-a books every match, sandbox-b only the matches of {@value #SANDBOX_B_BOOKING}. Both push to the
     * embedded sandbox, each with its own partner id and client credentials.
     */
    public static final List<SandboxPartner> SANDBOX_PARTNERS = List.of(
            new SandboxPartner("sandbox-a", SANDBOX_PARTNER_ID, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, "all"),
            new SandboxPartner("sandbox-b", "2", "sandbox-client-b", "sandbox-secret-b", SANDBOX_B_BOOKING));
    /** Derived: the sandbox generated the fixtures/admin token (written to liveodds.sandbox.token-file, never logged). */
    public static final String TOKEN_GENERATED = "liveodds.sandbox.token-generated";
    /**
     * Derived: how POST /v1/ingest checks its bearer token. One partner: as the fixtures API does (mode and tokens of
     * liveodds.fixtures.auth.*). Several: static, with liveodds.source.http.tokens, so that no partner's fixtures token
     * can feed the upstream of every partner.
     */
    public static final String INGEST_MODE = "liveodds.source.http.auth.mode";
    public static final String INGEST_TOKENS = "liveodds.source.http.auth.tokens";
    public static final String INGEST_TOKENS_SETTING = "liveodds.source.http.auth.tokens-setting";
    /**
     * Derived: with the Kafka source and a control topic (and a retention), every instance keeps the whole topic for
     * recovery with a reader of its own and pushes the recoveries of the matches its partitions carry (contract 20,
     * scale-out), so ingest does not keep the topic's records itself.
     */
    public static final String KEPT_FROM_TOPIC = "liveodds.recovery.kept-from-topic";
    /** Derived: whether the HTTP source is the active source (its check warns about missing tokens only then). */
    public static final String INGEST_IN_USE = "liveodds.source.http.auth.in-use";

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

        // no liveodds.partner.* at all (an audience or trust store alone keeps the single sandbox partner of before)
        boolean twoSandboxPartners = sandbox && !partnerList && PartnerSettings.SINGLE_PARTNER_KEYS.stream()
                .filter(k -> k.startsWith("liveodds.partner.")).noneMatch(k -> isSet(lookup.apply(k)));
        if (sandbox) {
            // the embedded default is a demo on this machine: neither port is open to the network unless asked for
            putDefault(derived, lookup, "camel.server.host", "127.0.0.1");
            putDefault(derived, lookup, "camel.management.host", "127.0.0.1");
        }
        if (twoSandboxPartners) {
            sandboxPartners(derived, lookup);
        } else if (sandbox && !partnerList) {
            // liveodds.sandbox.enabled=true with (some) liveodds.partner.* given: the sandbox completes that partner
            String sandboxUrl = sandboxUrl(lookup);
            putDefault(derived, lookup, "liveodds.partner.id", SANDBOX_PARTNER_ID);
            putDefault(derived, lookup, "liveodds.partner.base-url", sandboxUrl);
            putDefault(derived, lookup, "liveodds.partner.auth-url", sandboxUrl);
            putDefault(derived, lookup, "liveodds.partner.client-id", SANDBOX_CLIENT_ID);
            putDefault(derived, lookup, "liveodds.partner.client-secret", SANDBOX_CLIENT_SECRET);
            if (isStatic(lookup) && !isSet(lookup.apply("liveodds.fixtures.auth.tokens"))) {
                derived.put("liveodds.fixtures.auth.mode", "static");
                derived.put("liveodds.fixtures.auth.tokens", "sandbox-" + randomHex(12));
                derived.put(TOKEN_GENERATED, "true");
            }
            putDefault(derived, lookup, "liveodds.admin.tokens", valueOr(derived.get("liveodds.fixtures.auth.tokens"),
                    "sandbox-admin-" + randomHex(12)));
        } else if (!partnerList) {
            for (String key : PARTNER_KEYS) {
                if (!isSet(lookup.apply(key))) {
                    throw new MissingSettingException(key);
                }
            }
        }
        // several partners (given, or the embedded default's two; a sandbox asked for with liveodds.partners serves
        // those): every partner's settings checked now, a missing or invalid one stops start-up naming its key
        boolean several = partnerList || twoSandboxPartners;
        Function<String, String> effective = key -> derived.containsKey(key) ? derived.get(key) : lookup.apply(key);
        if (several) {
            PartnerSettings.all(effective);
        }
        derived.put("liveodds.sandbox.enabled", Boolean.toString(sandbox));

        String baseUrl = valueOr(derived.get("liveodds.partner.base-url"), lookup.apply("liveodds.partner.base-url"));
        if (!several && !isSet(lookup.apply("liveodds.partner.audience"))) {
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
        derived.put(KEPT_FROM_TOPIC, Boolean.toString("kafka".equals(source)
                && isSet(lookup.apply("liveodds.source.kafka.control-topic"))
                && !Durations.parse(valueOr(lookup.apply("liveodds.recovery.retention"), "10h")).isZero()));
        // the beans take sizes as a byte count
        SIZE_KEYS.forEach((key, fallback) ->
                derived.put(key + "-bytes", Long.toString(Durations.parseBytes(valueOr(lookup.apply(key), fallback)))));
        ingestAuthentication(derived, effective, several, source);
        derived.put("liveodds.demo.enabled", Boolean.toString(sandbox && "file".equals(source)
                && !"false".equalsIgnoreCase(valueOr(lookup.apply("liveodds.demo.producer"), "true"))));
        return derived;
    }

    /**
     * The embedded default: partners sandbox-a and sandbox-b of liveodds.partners, pushing to the embedded sandbox.
     * Fixtures tokens given in liveodds.fixtures.auth.tokens (no partner setting given) become sandbox-a's; else each
     * gets a generated one (LiveoddsSettings writes them to liveodds.sandbox.token-file, sandbox-a's, which is also the
     * admin token and the HTTP source's unless those are given, and to that file's name + {@code -b}).
     */
    private static void sandboxPartners(Map<String, String> derived, Function<String, String> lookup) {
        String sandboxUrl = sandboxUrl(lookup);
        boolean generate = isStatic(lookup) && !isSet(lookup.apply("liveodds.fixtures.auth.tokens"));
        String givenTokens = lookup.apply("liveodds.fixtures.auth.tokens");
        List<String> names = new ArrayList<>();
        for (SandboxPartner p : SANDBOX_PARTNERS) {
            names.add(p.name());
            String key = PartnerSettings.LIST + "." + p.name() + ".";
            derived.put(key + "id", p.id());
            derived.put(key + "base-url", sandboxUrl);
            derived.put(key + "auth-url", sandboxUrl);
            derived.put(key + "client-id", p.clientId());
            derived.put(key + "client-secret", p.clientSecret());
            Path home = Path.of(valueOr(lookup.apply("liveodds.home"), "."));
            Path booking = home.resolve(p.booking());
            if (!"all".equals(p.booking())) {
                copyIfMissing(home.resolve(SANDBOX_B_BOOKING_TEMPLATE), booking);
            }
            // run outside the repository's layout (java -jar -help from anywhere) the demo's booking file is not there
            derived.put(key + "booking", "all".equals(p.booking()) || !Files.isRegularFile(booking) ? "all" : booking.toString());
            if (generate) {
                derived.put(key + "fixtures-tokens", "sandbox-" + randomHex(12));
            } else if (p == SANDBOX_PARTNERS.get(0) && isSet(givenTokens)) {
                derived.put(key + "fixtures-tokens", givenTokens);
            }
        }
        derived.put(PartnerSettings.LIST, String.join(",", names));
        // replaced by the partners' own tokens above: liveodds.fixtures.auth.tokens is not used with liveodds.partners
        derived.put("liveodds.fixtures.auth.tokens", "");
        String first = PartnerSettings.LIST + "." + SANDBOX_PARTNERS.get(0).name() + ".fixtures-tokens";
        if (generate) {
            derived.put("liveodds.fixtures.auth.mode", "static");
            derived.put(TOKEN_GENERATED, "true");
        }
        putDefault(derived, lookup, "liveodds.admin.tokens", valueOr(derived.get(first), "sandbox-admin-" + randomHex(12)));
        putDefault(derived, lookup, "liveodds.source.http.tokens",
                valueOr(lookup.apply("liveodds.admin.tokens"), derived.get("liveodds.admin.tokens")));
    }

    /** The sandbox's booking file from its template, once: later edits (by hand or through the API) are kept. */
    private static void copyIfMissing(Path template, Path file) {
        if (Files.exists(file) || !Files.isRegularFile(template)) {
            return;
        }
        try {
            Files.copy(template, file);
        } catch (FileAlreadyExistsException e) {
            // another start made it meanwhile: the same template
        } catch (IOException e) {
            // a read-only folder: the file stays missing and the partner books all, as outside the repository's layout
        }
    }

    /** See {@link #INGEST_MODE}: several partners need liveodds.source.http.tokens when the HTTP source runs. */
    private static void ingestAuthentication(Map<String, String> derived, Function<String, String> effective,
            boolean several, String source) {
        if (several) {
            String tokens = effective.apply("liveodds.source.http.tokens");
            if ("http".equals(source) && !isSet(tokens)) {
                throw new MissingSettingException("liveodds.source.http.tokens");
            }
            derived.put(INGEST_MODE, "static");
            derived.put(INGEST_TOKENS, valueOr(tokens, ""));
            derived.put(INGEST_TOKENS_SETTING, "liveodds.source.http.tokens");
        } else {
            derived.put(INGEST_MODE, valueOr(effective.apply("liveodds.fixtures.auth.mode"), "static"));
            derived.put(INGEST_TOKENS, valueOr(effective.apply("liveodds.fixtures.auth.tokens"), ""));
            derived.put(INGEST_TOKENS_SETTING, "liveodds.fixtures.auth.tokens");
        }
        derived.put(INGEST_IN_USE, Boolean.toString("http".equals(source)));
    }

    private static String sandboxUrl(Function<String, String> lookup) {
        return "http://127.0.0.1:" + valueOr(lookup.apply("camel.server.port"), "8080") + "/sandbox";
    }

    private static boolean isStatic(Function<String, String> lookup) {
        return "static".equalsIgnoreCase(valueOr(lookup.apply("liveodds.fixtures.auth.mode"), "static").trim());
    }

    private static void checkNotation(Function<String, String> lookup) {
        for (String key : DURATION_KEYS) {
            check(key, lookup.apply(key), Durations::parse);
        }
        for (String key : SIZE_KEYS.keySet()) {
            check(key, lookup.apply(key), Durations::parseBytes);
        }
        COUNT_KEYS.forEach((key, least) -> check(key, lookup.apply(key),
                value -> SettingsReader.parseCount(value, least, COUNT_MOST.getOrDefault(key, Integer.MAX_VALUE))));
        for (String key : FLAG_KEYS) {
            check(key, lookup.apply(key), SettingsReader::parseFlag);
        }
    }

    private static void check(String key, String value, Function<String, ?> parser) {
        if (isSet(value) && !value.contains("{{")) {
            try {
                parser.apply(value);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(key + ": " + e.getMessage());
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

    /** One partner of the embedded default; its booking is all or a file under liveodds.home. */
    public record SandboxPartner(String name, String id, String clientId, String clientSecret, String booking) {
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
