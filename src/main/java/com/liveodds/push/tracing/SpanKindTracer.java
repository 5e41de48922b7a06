package com.liveodds.push.tracing;

import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;

/**
 * The OpenTelemetry tracer Camel's tracer makes its spans with: the SDK's, giving the next span made on this thread
 * the kind {@link BundleTracer} chose (camel-opentelemetry2 4.18 makes every span INTERNAL; a request to the partner
 * is a CLIENT span, a message taken from a broker a CONSUMER one, a request served a SERVER one).
 */
final class SpanKindTracer implements Tracer {

    private static final ThreadLocal<SpanKind> NEXT = new ThreadLocal<>();
    private final Tracer sdk;

    SpanKindTracer(Tracer sdk) {
        this.sdk = sdk;
    }

    /** The kind of the next span this thread starts; null for the default (INTERNAL). */
    void nextKind(SpanKind kind) {
        if (kind == null) {
            NEXT.remove();
        } else {
            NEXT.set(kind);
        }
    }

    @Override
    public SpanBuilder spanBuilder(String spanName) {
        SpanBuilder builder = sdk.spanBuilder(spanName);
        SpanKind kind = NEXT.get();
        return kind == null ? builder : builder.setSpanKind(kind);
    }
}
