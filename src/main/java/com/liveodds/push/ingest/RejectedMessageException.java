package com.liveodds.push.ingest;

import java.util.Locale;

/**
 * An upstream message that breaks the rules of contract sections 3 and 11. The message says which rule, in words for
 * an operator; the {@link Reason} is its label on the {@code liveodds_messages_rejected_total} counter.
 */
public class RejectedMessageException extends RuntimeException {

    /** The fixed set of rejection reasons: each is a metric label, so the set stays small. */
    public enum Reason {
        EMPTY, NOT_UTF8, NOT_JSON, NOT_OBJECT, TRAILING_CONTENT, DUPLICATE_KEY, BAD_MESSAGE_ID, MISSING_FIELD,
        BAD_FIELD, UNRESOLVABLE_MATCH, NOT_REGULAR_FILE, TOO_LARGE, UNREADABLE, BAD_FILE_NAME;

        /** {@code not_utf8}, {@code duplicate_key}...: the label value. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Reason reason;

    public RejectedMessageException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason getReason() {
        return reason;
    }

    /** The message fit for one log line: it may quote upstream values. */
    public String getSafeMessage() {
        return com.liveodds.push.ops.LogSafe.escape(getMessage());
    }

    /** For routes and beans: the label of the reason. */
    public String getReasonLabel() {
        return reason.label();
    }
}
