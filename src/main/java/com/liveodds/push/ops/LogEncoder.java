package com.liveodds.push.ops;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.liveodds.push.settings.Timestamps;

/**
 * The log line encoder of logback.xml: the pattern when {@code format} is {@code text}, and with {@code json} one
 * JSON object per line with the fields of contract section 13, flat: {@code time} (ISO 8601 UTC, ms), {@code level},
 * {@code logger}, {@code thread}, {@code message}, {@code match_id} and {@code message_id} when the line is about a
 * message ({@link MessageLogContext}), {@code trace_id} and {@code span_id} when that message is traced, and {@code error} (the stack trace as one string) when there is one.
 * Logback's own JsonEncoder nests the MDC and writes epoch milliseconds, hence this one. One encoder for both keeps
 * a single appender, so logback has no unused appender to warn about on the console.
 */
public class LogEncoder extends PatternLayoutEncoder {

    private static final JsonFactory JSON = new JsonFactory();
    private volatile boolean json;

    /** {@code text} (the pattern) or {@code json}. */
    public void setFormat(String format) {
        this.json = "json".equals(format);
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        return json ? encodeJson(event) : super.encode(event);
    }

    private byte[] encodeJson(ILoggingEvent event) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("time", Timestamps.format(Instant.ofEpochMilli(event.getTimeStamp())));
            json.writeStringField("level", event.getLevel().toString());
            json.writeStringField("logger", event.getLoggerName());
            json.writeStringField("thread", event.getThreadName());
            json.writeStringField("message", event.getFormattedMessage());
            Map<String, String> mdc = event.getMDCPropertyMap();
            writeIfPresent(json, MessageLogContext.MATCH_ID, mdc.get(MessageLogContext.MATCH_ID));
            writeIfPresent(json, MessageLogContext.MESSAGE_ID, mdc.get(MessageLogContext.MESSAGE_ID));
            writeIfPresent(json, MessageLogContext.TRACE_ID, mdc.get(MessageLogContext.TRACE_ID));
            writeIfPresent(json, MessageLogContext.SPAN_ID, mdc.get(MessageLogContext.SPAN_ID));
            IThrowableProxy error = event.getThrowableProxy();
            if (error != null) {
                json.writeStringField("error", ThrowableProxyUtil.asString(error));
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.write('\n');
        return out.toByteArray();
    }

    private static void writeIfPresent(JsonGenerator json, String field, String value) throws IOException {
        if (value != null) {
            json.writeStringField(field, value);
        }
    }
}
