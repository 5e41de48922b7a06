package com.liveodds.push.ops;

import org.slf4j.MDC;

/**
 * Puts {@code match_id} and {@code message_id} on the log lines written inside it (SLF4J MDC), so the JSON log
 * format carries them as fields:
 * <pre>{@code try (var log = MessageLogContext.of(matchId, messageId)) { LOG.info(...); }}</pre>
 * An unknown (null) id is left out. Closing restores what the thread had before, so contexts can nest.
 */
public final class MessageLogContext implements AutoCloseable {

    public static final String MATCH_ID = "match_id";
    public static final String MESSAGE_ID = "message_id";

    private final String previousMatchId;
    private final String previousMessageId;

    private MessageLogContext(String matchId, String messageId) {
        previousMatchId = MDC.get(MATCH_ID);
        previousMessageId = MDC.get(MESSAGE_ID);
        put(MATCH_ID, matchId);
        put(MESSAGE_ID, messageId);
    }

    public static MessageLogContext of(String matchId, String messageId) {
        return new MessageLogContext(matchId, messageId);
    }

    @Override
    public void close() {
        put(MATCH_ID, previousMatchId);
        put(MESSAGE_ID, previousMessageId);
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
