package com.liveodds.push.settings;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One partner the bundle delivers to (contract section 16): the single partner of {@code liveodds.partner.*} (name
 * empty), or partner N of {@code liveodds.partners} with its {@code liveodds.partners.N.*} settings. Its {@link #suffix()}
 * names its routes, endpoints and components ({@code liveodds-push-N}, {@code liveoddsHttp-N}); the single partner's
 * have no suffix, so a one-partner deployment is named exactly as before.
 */
public record PartnerSettings(String name, String id, String baseUrl, String authUrl, String clientId,
        String clientSecret, String audience, String trustStore, String trustStorePassword, String keyStore,
        String keyStorePassword, int maxInFlight, String booking, String fixturesTokens) {

    public static final String LIST = "liveodds.partners";
    private static final Pattern NAME = Pattern.compile("[a-z0-9-]{1,32}");
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._~-]{1,64}");
    static final List<String> REQUIRED = List.of("id", "base-url", "auth-url", "client-id", "client-secret");
    /** The single partner's settings, which a list of partners replaces (giving both is a mistake, not a merge). */
    static final List<String> SINGLE_PARTNER_KEYS = List.of("liveodds.partner.id", "liveodds.partner.base-url",
            "liveodds.partner.auth-url", "liveodds.partner.client-id", "liveodds.partner.client-secret",
            "liveodds.partner.audience", "liveodds.partner.tls.trust-store", "liveodds.partner.tls.trust-store-password",
            "liveodds.partner.tls.key-store", "liveodds.partner.tls.key-store-password", "liveodds.fixtures.auth.tokens");

    /** Beans, routes and endpoints of this partner are named with it: empty for the single partner, else "-name". */
    public String suffix() {
        return name.isEmpty() ? "" : "-" + name;
    }

    /** The partner of {@code liveodds.partner.*} rather than one of a list. */
    public boolean isSingle() {
        return name.isEmpty();
    }

    /** The setting key of this partner's {@code key} ({@code base-url} → {@code liveodds.partners.a.base-url}). */
    public String key(String key) {
        return keyOf(name, key);
    }

    /** For logs and status: the partner's name, or its id for the single partner. */
    public String label() {
        return name.isEmpty() ? id : name;
    }

    private static String keyOf(String name, String key) {
        return name.isEmpty() ? singleKey(key) : LIST + "." + name + "." + key;
    }

    private static String singleKey(String key) {
        return switch (key) {
            case "max-in-flight" -> "liveodds.delivery.max-in-flight";
            case "fixtures-tokens" -> "liveodds.fixtures.auth.tokens";
            default -> "liveodds.partner." + key;
        };
    }

    /** Whether {@code liveodds.partners} lists partners. */
    public static boolean isList(Function<String, String> lookup) {
        return StartupSettings.isSet(lookup.apply(LIST));
    }

    /** The names of {@code liveodds.partners}, checked: each {@code [a-z0-9-]{1,32}}, none twice. */
    public static List<String> names(Function<String, String> lookup) {
        String list = lookup.apply(LIST);
        if (!StartupSettings.isSet(list)) {
            return List.of();
        }
        Set<String> names = new LinkedHashSet<>();
        for (String raw : list.split(",")) {
            String name = raw.trim();
            if (!NAME.matcher(name).matches()) {
                // control characters shown as ?: the message stays one line
                throw new IllegalArgumentException(LIST + ": partner name '" + name.replaceAll("\\p{Cntrl}", "?")
                        + "' must be 1 to 32 of a-z, 0-9 and -");
            }
            if (!names.add(name)) {
                throw new IllegalArgumentException(LIST + ": partner " + name + " is listed twice");
            }
        }
        return List.copyOf(names);
    }

    /**
     * Every partner, checked: a missing or invalid setting stops start-up with the key named. The single partner when
     * {@code liveodds.partners} is empty (its required keys are checked by {@link StartupSettings}).
     */
    public static List<PartnerSettings> all(Function<String, String> lookup) {
        List<String> names = names(lookup);
        if (names.isEmpty()) {
            return List.of(read("", lookup));
        }
        for (String key : SINGLE_PARTNER_KEYS) {
            if (StartupSettings.isSet(lookup.apply(key))) {
                throw new IllegalArgumentException(key + " is not used when " + LIST
                        + " is set: give each partner its own liveodds.partners.<name>.* settings");
            }
        }
        List<PartnerSettings> partners = new ArrayList<>();
        for (String name : names) {
            for (String key : REQUIRED) {
                if (!StartupSettings.isSet(lookup.apply(keyOf(name, key)))) {
                    throw new StartupSettings.MissingSettingException(keyOf(name, key));
                }
            }
            partners.add(read(name, lookup));
        }
        checkOwnership(partners);
        return List.copyOf(partners);
    }

    /**
     * A partner id, a fixtures token and a booking file belong to one partner: its fixtures path and token tell partners
     * apart, and its booking API changes its own file (one file for two would have one partner's DELETE unbook for both).
     */
    private static void checkOwnership(List<PartnerSettings> partners) {
        Map<String, String> ids = new HashMap<>();
        Map<String, String> tokens = new HashMap<>();
        Map<Path, PartnerSettings> bookingFiles = new HashMap<>();
        for (PartnerSettings p : partners) {
            Path bookingFile = realBookingFile(p.booking());
            PartnerSettings sharing = bookingFile == null ? null : bookingFiles.putIfAbsent(bookingFile, p);
            if (sharing != null) {
                throw new IllegalArgumentException(p.key("booking") + ": booking file " + bookingFile + " is partner "
                        + sharing.name() + "'s too (" + sharing.key("booking") + "): give each partner a booking file of its own");
            }
            String other = ids.putIfAbsent(p.id(), p.name());
            if (other != null) {
                throw new IllegalArgumentException(p.key("id") + ": partner id " + p.id() + " is partner " + other + "'s too");
            }
            for (String token : p.fixturesTokens().split(",")) {
                String owner = token.isBlank() ? null : tokens.putIfAbsent(token.trim(), p.name());
                if (owner != null && !owner.equals(p.name())) {
                    // the token itself is never part of a message
                    throw new IllegalArgumentException(p.key("fixtures-tokens") + ": a token of partner " + owner
                            + " too (each fixtures token belongs to one partner)");
                }
            }
        }
    }

    private static PartnerSettings read(String name, Function<String, String> lookup) {
        Function<String, String> get = key -> {
            String value = lookup.apply(keyOf(name, key));
            return value == null ? "" : value.trim();
        };
        String baseUrl = get.apply("base-url");
        String authUrl = get.apply("auth-url");
        if (!name.isEmpty()) {
            checkId(keyOf(name, "id"), get.apply("id"));
            checkUrl(keyOf(name, "base-url"), baseUrl);
            checkUrl(keyOf(name, "auth-url"), authUrl);
        }
        String audience = get.apply("audience");
        String maxInFlight = get.apply("max-in-flight");
        if (maxInFlight.isEmpty()) {
            maxInFlight = valueOr(lookup.apply("liveodds.delivery.max-in-flight"), "256");
        }
        String booking = get.apply("booking");
        if (!name.isEmpty() && booking.isEmpty()) {
            booking = "all";
        }
        if (!name.isEmpty()) {
            checkBooking(keyOf(name, "booking"), booking);
        }
        return new PartnerSettings(name, get.apply("id"), baseUrl, authUrl, get.apply("client-id"),
                lookup.apply(keyOf(name, "client-secret")) == null ? "" : lookup.apply(keyOf(name, "client-secret")),
                audience.isEmpty() ? baseUrl : audience, get.apply("tls.trust-store"), get.apply("tls.trust-store-password"),
                get.apply("tls.key-store"), get.apply("tls.key-store-password"),
                positive(keyOf(name, "max-in-flight"), maxInFlight), booking.isEmpty() ? "all" : booking,
                get.apply("fixtures-tokens"));
    }

    /** The id is one segment of every push and fixtures path: nothing a URL would read as more, or escape. */
    private static void checkId(String key, String value) {
        if (!ID.matcher(value).matches() || value.chars().allMatch(c -> c == '.')) {
            throw new IllegalArgumentException(key + " must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '~' and '-'");
        }
    }

    private static void checkUrl(String key, String value) {
        try {
            URI uri = URI.create(value);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
                throw new IllegalArgumentException("not an http or https URL");
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": '" + value + "' is not an http(s) URL");
        }
    }

    /** {@code all} or a readable file (a placeholder not resolved yet is checked when the service starts). */
    private static void checkBooking(String key, String booking) {
        if (booking.isEmpty() || "all".equalsIgnoreCase(booking) || booking.contains("{{")) {
            return;
        }
        Path file = Path.of(booking);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(key + ": booking file " + file + " is not a readable file (or write all)");
        }
    }

    /** The booking file as the file system names it (symbolic links followed), or null for all or a file not there. */
    private static Path realBookingFile(String booking) {
        if ("all".equalsIgnoreCase(booking) || booking.contains("{{")) {
            return null;
        }
        try {
            return Path.of(booking).toRealPath();
        } catch (IOException | InvalidPathException notThere) {
            return null; // refused by checkBooking, or when the service reads it
        }
    }

    private static int positive(String key, String value) {
        try {
            return SettingsReader.parseCount(value, 1);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage());
        }
    }

    private static String valueOr(String value, String fallback) {
        return StartupSettings.isSet(value) ? value : fallback;
    }

    @Override
    public String toString() {
        return "partner " + label();
    }
}
