package com.liveodds.push.settings;

/**
 * A setting that stops start-up, its message one line naming the key: the runnable prints that line and nothing of
 * the stack, wherever in start-up the setting was read (a value given through a placeholder reads only then).
 */
public class InvalidSettingException extends IllegalArgumentException {

    public InvalidSettingException(String message) {
        super(message);
    }

    public InvalidSettingException(String message, Throwable cause) {
        super(message, cause);
    }

    /** The first of these in the causes of a failed start-up, or null. */
    public static InvalidSettingException in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidSettingException invalid) {
                return invalid;
            }
        }
        return null;
    }
}
