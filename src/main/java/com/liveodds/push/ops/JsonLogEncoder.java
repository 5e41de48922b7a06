package com.liveodds.push.ops;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.liveodds.push.settings.Timestamps;

/**
 * One JSON object per log line with the fields of contract section 13, flat: {@code time} (ISO 8601 UTC, ms),
 * {@code level}, {@code logger}, {@code thread}, {@code message}, {@code match_id} and {@code message_id} when the
 * line is about a message ({@link MessageLogContext}), and {@code error} (the stack trace as one string) when there
 * is one. Logback's own JsonEncoder nests the MDC and writes epoch milliseconds, hence this one.
 */
public class JsonLogEncoder extends EncoderBase<ILoggingEvent> {

    private static final JsonFactory JSON = new JsonFactory();
    private static final byte[] NOTHING = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NOTHING;
    }

    @Override
    public byte[] footerBytes() {
        return NOTHING;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
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
