package com.liveodds.push.settings;

import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;

import org.apache.camel.CamelContext;

/**
 * The bundle's settings of a CamelContext read as the types the beans take: placeholders inside a value resolved
 * ({@code {{liveodds.home}}/data/inbox}), durations in the notation of {@link Durations}, and a value that does not
 * read as its type stops start-up with one line naming its key.
 */
public final class SettingsReader {

    private final CamelContext context;

    public SettingsReader(CamelContext context) {
        this.context = context;
    }

    /** The value of a key the bundle's defaults give (missing: start-up stops naming it). */
    public String text(String key) {
        return context.resolvePropertyPlaceholders("{{" + key + "}}");
    }

    /** The value of a key, or the fallback when nothing sets it. */
    public String text(String key, String fallback) {
        return context.resolvePropertyPlaceholders("{{" + key + ":" + fallback + "}}");
    }

    public Duration duration(String key) {
        return read(key, Durations::parse);
    }

    /** A whole number of at least {@code least}. */
    public int count(String key, int least) {
        return read(key, value -> parseCount(value, least));
    }

    /** A whole number from {@code least} to {@code most}. */
    public int count(String key, int least, int most) {
        return read(key, value -> parseCount(value, least, most));
    }

    /** The notation of a count: a whole number, here of at least {@code least}. */
    public static int parseCount(String text, int least) {
        return parseCount(text, least, Integer.MAX_VALUE);
    }

    /** The notation of a count: a whole number, here from {@code least} to {@code most}. */
    public static int parseCount(String text, int least, int most) {
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            value = Integer.MIN_VALUE;
        }
        if (value < least || value > most) {
            throw new IllegalArgumentException((most == Integer.MAX_VALUE ? "not a whole number of at least " + least
                    : "not a whole number from " + least + " to " + most) + ": '" + text + "'");
        }
        return value;
    }

    public long number(String key) {
        return read(key, value -> Long.parseLong(value.trim()));
    }

    public long number(String key, long fallback) {
        String value = text(key, Long.toString(fallback));
        return read(key, value, v -> Long.parseLong(v.trim()));
    }

    public boolean flag(String key) {
        return read(key, SettingsReader::parseFlag);
    }

    /** The notation of a switch: {@code true} or {@code false}. */
    public static boolean parseFlag(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException("not true or false: '" + text + "'");
        };
    }

    private <T> T read(String key, Function<String, T> type) {
        return read(key, text(key), type);
    }

    private static <T> T read(String key, String value, Function<String, T> type) {
        try {
            return type.apply(value);
        } catch (RuntimeException e) {
            throw new InvalidSettingException(key + ": " + (e instanceof NumberFormatException ? "not a number: '" + value + "'" : e.getMessage()));
        }
    }
}
