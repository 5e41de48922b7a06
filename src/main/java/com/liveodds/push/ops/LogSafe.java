package com.liveodds.push.ops;

/**
 * Makes an upstream value (an id, a type, a reason quoting a value, a file name) safe to put into one log line: no
 * byte of it can end the line or start a forged one. Control characters, line and paragraph separators and
 * invisible format characters (bidi overrides, BOM) are written as a backslash, u and four hex digits; long values are cut short.
 */
public final class LogSafe {

    /** Enough for any id and reason we log; a longer value is cut and marked. */
    public static final int MAX_LENGTH = 256;

    private LogSafe() {
    }

    public static String escape(String value) {
        if (value == null) {
            return "null";
        }
        int length = Math.min(value.length(), MAX_LENGTH);
        StringBuilder out = null;
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (unsafe(c)) {
                if (out == null) {
                    out = new StringBuilder(length + 16).append(value, 0, i);
                }
                out.append(String.format("\\u%04X", (int) c));
            } else if (out != null) {
                out.append(c);
            }
        }
        String safe = out == null ? value.substring(0, length) : out.toString();
        return value.length() > MAX_LENGTH ? safe + "...(" + value.length() + " chars)" : safe;
    }

    private static boolean unsafe(char c) {
        if (Character.isISOControl(c)) {
            return true; // C0, DEL, C1 (NEL U+0085 among them)
        }
        int type = Character.getType(c);
        return type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR || type == Character.FORMAT;
    }
}
