package com.liveodds.push.ops;

import org.apache.camel.Exchange;
import org.slf4j.MDC;

/**
 * Puts {@code match_id} and {@code message_id} on the log lines written inside it (SLF4J MDC), so the JSON log
 * format carries them as fields, and with tracing on {@code trace_id} and {@code span_id} of the exchange:
 * <pre>{@code try (var log = MessageLogContext.of(exchange, matchId, messageId)) { LOG.info(...); }}</pre>
 * An unknown (null) id is left out. Closing restores what the thread had before, so contexts can nest.
 */
public final class MessageLogContext implements AutoCloseable {

    public static final String MATCH_ID = "match_id";
    public static final String MESSAGE_ID = "message_id";
    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";

    private final String previousMatchId;
    private final String previousMessageId;
    private final String previousTraceId;
    private final String previousSpanId;

    private MessageLogContext(String matchId, String messageId, TraceIds trace) {
        previousMatchId = MDC.get(MATCH_ID);
        previousMessageId = MDC.get(MESSAGE_ID);
        previousTraceId = MDC.get(TRACE_ID);
        previousSpanId = MDC.get(SPAN_ID);
        put(MATCH_ID, matchId);
        put(MESSAGE_ID, messageId);
        put(TRACE_ID, trace == null ? null : trace.traceId());
        put(SPAN_ID, trace == null ? null : trace.spanId());
    }

    public static MessageLogContext of(String matchId, String messageId) {
        return new MessageLogContext(matchId, messageId, null);
    }

    /** With the trace of the exchange ({@link TraceIds#PROPERTY}) when tracing is on. */
    public static MessageLogContext of(Exchange exchange, String matchId, String messageId) {
        return new MessageLogContext(matchId, messageId, exchange.getProperty(TraceIds.PROPERTY, TraceIds.class));
    }

    @Override
    public void close() {
        put(MATCH_ID, previousMatchId);
        put(MESSAGE_ID, previousMessageId);
        put(TRACE_ID, previousTraceId);
        put(SPAN_ID, previousSpanId);
    }

    private static void put(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
