package com.liveodds.push.support;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/**
 * The span exporter {@code memory} of the OpenTelemetry SDK's autoconfigure ({@code otel.traces.exporter=memory},
 * alone or beside {@code otlp}): the service's finished spans, kept in this JVM for a test to read.
 */
public final class InMemoryTraces implements ConfigurableSpanExporterProvider {

    private static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();

    @Override
    public SpanExporter createExporter(ConfigProperties config) {
        return new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                return EXPORTER.export(spans);
            }

            @Override
            public CompletableResultCode flush() {
                return EXPORTER.flush();
            }

            @Override
            public CompletableResultCode shutdown() {
                // the exporter outlives one service: a test reads it after the service stopped
                return CompletableResultCode.ofSuccess();
            }
        };
    }

    @Override
    public String getName() {
        return "memory";
    }

    public static List<SpanData> spans() {
        return EXPORTER.getFinishedSpanItems();
    }

    /** The finished spans by trace id. */
    public static Map<String, List<SpanData>> traces() {
        return spans().stream().collect(Collectors.groupingBy(SpanData::getTraceId));
    }
}
