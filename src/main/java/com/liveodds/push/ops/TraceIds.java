package com.liveodds.push.ops;

/**
 * The trace an exchange's message belongs to and its span of the moment (W3C hex ids), which tracing keeps in the
 * exchange property {@value #PROPERTY} while it is on; {@link MessageLogContext} puts them on the log lines.
 */
public record TraceIds(String traceId, String spanId) {

    /** Exchange property holding the exchange's current {@code TraceIds}; absent while tracing is off. */
    public static final String PROPERTY = "liveoddsTraceIds";
}
