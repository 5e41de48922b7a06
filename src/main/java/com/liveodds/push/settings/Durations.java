package com.liveodds.push.settings;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.camel.util.TimeUtils;

/**
 * The duration and size notation of our settings: {@code 500ms}, {@code 5s}, {@code 10m}, {@code 2h} (a bare number
 * is milliseconds), {@code 1MB}. Durations are read by Camel's own {@link TimeUtils}, the reader of every
 * {@code Duration} setter of the beans and every time option of an endpoint, so a value accepted here is accepted
 * there and the other way round.
 */
public final class Durations {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|k|mb|m|gb|g)?");

    private Durations() {
    }

    /** {@code 0} (or a blank value) gives {@link Duration#ZERO}, which callers read as "off"; a bare number is milliseconds. */
    public static Duration parse(String text) {
        String value = text == null ? "" : text.trim();
        if (value.isEmpty()) {
            return Duration.ZERO;
        }
        Duration duration;
        try {
            duration = TimeUtils.toDuration(value);
        } catch (RuntimeException e) {
            duration = null;
        }
        if (duration == null || duration.isNegative()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (write it as 500ms, 5s, 10m or 2h)");
        }
        return duration;
    }

    /** Written as the settings write it, in the largest unit that fits exactly: {@code 24h}, {@code 90s}, {@code 500ms}. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis != 0 && millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis != 0 && millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    /** KB and MB are 1024 and 1024²; a bare number is bytes. */
    public static long parseBytes(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIZE.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: '" + text + "' (write it as 512KB or 1MB)");
        }
        long amount = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "b" : m.group(2);
        return switch (unit) {
            case "kb", "k" -> amount * 1024L;
            case "mb", "m" -> amount * 1024L * 1024L;
            case "gb", "g" -> amount * 1024L * 1024L * 1024L;
            default -> amount;
        };
    }
}
