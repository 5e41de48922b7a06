package com.liveodds.push.check;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;

import com.liveodds.push.settings.Durations;
import com.liveodds.push.settings.StartupSettings;

/**
 * The partner settings the check runs with, read as a run reads them: the single partner of
 * {@code liveodds.partner.*} (with the embedded sandbox's defaults when no partner setting is given, contract
 * section 9), or partner N of {@code liveodds.partners} (contract section 16). The multi-partner mode is not built
 * in the service yet, so its keys are read here, by the names section 16 fixes.
 */
public record PartnerUnderCheck(String name, String id, String baseUrl, String authUrl, String clientId,
                                String clientSecret, String audience, String trustStore, String trustStorePassword,
                                String keyStore, String keyStorePassword, Duration timeout, boolean sandbox) {

    /** {@code liveodds.partner.*}, completed as start-up completes it. */
    public static PartnerUnderCheck single(Function<String, String> lookup) {
        Map<String, String> derived = StartupSettings.derive(lookup);
        Function<String, String> effective = key -> derived.containsKey(key) ? derived.get(key) : lookup.apply(key);
        boolean sandbox = Boolean.parseBoolean(derived.get("liveodds.sandbox.enabled"));
        if (sandbox && derived.containsKey("liveodds.partners")) {
            // the embedded default's two sandbox partners: the check runs with the first one's credentials and id
            return read("liveodds.partners." + StartupSettings.SANDBOX_PARTNERS.get(0).name(), "", effective, lookup, true);
        }
        return read("liveodds.partner", "", effective, lookup, sandbox);
    }

    /**
     * Partner {@code name} of {@code liveodds.partners} (with no partner setting at all, of the embedded default's
     * sandbox-a and sandbox-b); a name not listed there is a usage error.
     */
    public static PartnerUnderCheck ofPartners(String name, Function<String, String> given) {
        boolean sandbox = false;
        Function<String, String> lookup = given;
        if (!StartupSettings.isSet(given.apply("liveodds.partners"))) {
            Map<String, String> derived = StartupSettings.derive(given);
            sandbox = derived.containsKey("liveodds.partners");
            lookup = key -> derived.containsKey(key) ? derived.get(key) : given.apply(key);
        }
        String listed = lookup.apply("liveodds.partners");
        boolean known = listed != null && Arrays.stream(listed.split(",")).map(String::trim).anyMatch(name::equals);
        if (!known) {
            throw new IllegalArgumentException("--partner " + name + ": not one of liveodds.partners ("
                    + (StartupSettings.isSet(listed) ? listed.trim() : "empty") + ")");
        }
        String prefix = "liveodds.partners." + name;
        for (String key : StartupSettings.PARTNER_KEYS) {
            String own = prefix + key.substring("liveodds.partner".length());
            if (!StartupSettings.isSet(lookup.apply(own))) {
                throw new StartupSettings.MissingSettingException(own);
            }
        }
        return read(prefix, name, lookup, lookup, sandbox);
    }

    private static PartnerUnderCheck read(String prefix, String name, Function<String, String> settings,
                                          Function<String, String> lookup, boolean sandbox) {
        Function<String, String> own = suffix -> {
            String value = settings.apply(prefix + suffix);
            return value == null ? "" : value.trim();
        };
        String baseUrl = own.apply(".base-url");
        String audience = own.apply(".audience");
        String timeout = lookup.apply("liveodds.delivery.timeout");
        return new PartnerUnderCheck(name, own.apply(".id"), baseUrl, own.apply(".auth-url"), own.apply(".client-id"),
                own.apply(".client-secret"), audience.isEmpty() ? baseUrl : audience,
                own.apply(".tls.trust-store"), own.apply(".tls.trust-store-password"),
                own.apply(".tls.key-store"), own.apply(".tls.key-store-password"),
                Durations.parse(StartupSettings.isSet(timeout) ? timeout.trim() : "10s"), sandbox);
    }

    @Override
    public String toString() {
        // a record prints every component: the secret and the passwords must never reach a line
        return "partner " + (name.isEmpty() ? id : name + " (id " + id + ")");
    }
}
