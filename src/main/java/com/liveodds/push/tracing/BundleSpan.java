package com.liveodds.push.tracing;

import java.util.Map;
import java.util.Set;

import com.liveodds.push.ops.TraceIds;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import org.apache.camel.Exchange;
import org.apache.camel.telemetry.Op;
import org.apache.camel.telemetry.SpanContextPropagationExtractor;
import org.apache.camel.telemetry.SpanContextPropagationInjector;
import org.apache.camel.telemetry.TagConstants;

/**
 * A span camel-opentelemetry2's tracer opens on an exchange, made by {@link BundleSpans}. The tracer opens one for each
 * run of a traced route and one for each send; the OpenTelemetry span starts once the tracer has said what it is (its
 * op, then its component), since a span's kind is fixed at its start: a route served over HTTP is SERVER, one fed by a
 * broker CONSUMER, any other INTERNAL, and a send to camel-http from inside a traced exchange is the CLIENT span of a
 * request. Any other send (a hop between routes, a hand-over to a queue, anything outside a traced exchange) records
 * nothing and stands for the span it is in, so that what follows it hangs below that one.
 */
final class BundleSpan implements org.apache.camel.telemetry.Span {

    private static final Set<String> HTTP_CLIENTS = Set.of("camel-http", "camel-https");
    private static final Map<String, SpanKind> RECEIVING = Map.of("camel-platform-http", SpanKind.SERVER,
            "camel-jms", SpanKind.CONSUMER, "camel-kafka", SpanKind.CONSUMER);

    private final BundleSpans spans;
    private final String name;
    private final BundleSpan parent;
    private final SpanContextPropagationExtractor upstream;
    private boolean sent;
    private boolean decided;
    /** Null while undecided and for a span that records nothing. */
    private Span span;
    private SpanKind kind;
    /** The exchange of a push's turn in its partner's queue ({@link PushTurnSpanDecorator}). */
    private Exchange turn;

    BundleSpan(BundleSpans spans, String name, BundleSpan parent, SpanContextPropagationExtractor upstream) {
        this.spans = spans;
        this.name = name;
        this.parent = parent;
        this.upstream = upstream;
    }

    @Override
    public void setTag(String key, String value) {
        if (TagConstants.OP.equals(key)) {
            sent = Op.EVENT_SENT.name().equals(value);
        } else if (started()) {
            span.setAttribute(key, value);
        }
    }

    @Override
    public void setComponent(String component) {
        decide(component);
        if (span != null) {
            span.setAttribute(TagConstants.COMPONENT, component);
        }
    }

    @Override
    public void setError(boolean error) {
        if (started()) {
            span.setAttribute(TagConstants.ERROR, error);
            span.setStatus(error ? StatusCode.ERROR : StatusCode.OK);
        }
    }

    /** A {@code log} step's message, or the failure that ended the span: an event of the span that records. */
    @Override
    public void log(Map<String, String> fields) {
        Span recording = recording();
        if (recording != null) {
            String event = fields.getOrDefault("event", "log");
            AttributesBuilder attributes = Attributes.builder();
            fields.forEach((key, value) -> attributes.put(key, value));
            recording.addEvent(event, attributes.build());
        }
    }

    /** The push route's span holds its exchange: the requests inside it describe the attempt from it. */
    void holdTurn(Exchange exchange) {
        if (!sent) {
            turn = exchange;
        }
    }

    void activate() {
        started();
        if (turn != null && span != null) {
            name(turn, span);
        } else if (kind == SpanKind.CLIENT) {
            Exchange push = parent.turn();
            if (push != null) {
                spans.describeAttempt(span, push);
                name(push, span);
            }
        }
    }

    void end() {
        if (span == null) {
            return;
        }
        if (kind == SpanKind.CLIENT) {
            Exchange push = parent.turn();
            if (push != null) {
                Integer status = push.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
                if (status != null) {
                    span.setAttribute("http.response.status_code", status.longValue());
                }
                name(push, parent.recording());
            }
        } else if (turn != null) {
            turn.removeProperty(TraceIds.PROPERTY);
        }
        span.end();
    }

    /** Only a request carries its trace on (W3C traceparent and tracestate): nothing else leaves the bundle. */
    void inject(SpanContextPropagationInjector injector) {
        if (kind == SpanKind.CLIENT) {
            spans.propagator().inject(Context.root().with(span), injector, SpanContextPropagationInjector::put);
        }
    }

    private boolean started() {
        if (!decided) {
            decide(null);
        }
        return span != null;
    }

    private void decide(String component) {
        if (decided) {
            return;
        }
        decided = true;
        if (sent && !HTTP_CLIENTS.contains(component)) {
            return;
        }
        Span enclosing = parent == null ? null : parent.recording();
        Context context;
        if (enclosing != null) {
            context = Context.root().with(enclosing);
        } else if (sent) {
            // a request outside any traced exchange (a host's)
            return;
        } else {
            // the first traced route of a message: it continues the trace the message came with, if any
            context = spans.propagator().extract(Context.root(), upstream, UpstreamHeaders.INSTANCE);
        }
        kind = sent ? SpanKind.CLIENT : RECEIVING.getOrDefault(component, SpanKind.INTERNAL);
        span = spans.tracer().spanBuilder(name).setParent(context).setSpanKind(kind).startSpan();
    }

    /** The span that records this one's part: itself, or the one it stands for. */
    private Span recording() {
        if (decided && span != null) {
            return span;
        }
        return parent == null ? null : parent.recording();
    }

    private Exchange turn() {
        if (turn != null) {
            return turn;
        }
        return parent == null ? null : parent.turn();
    }

    /** The trace and span the log lines of the push name (MessageLogContext). */
    private static void name(Exchange exchange, Span span) {
        exchange.setProperty(TraceIds.PROPERTY,
                new TraceIds(span.getSpanContext().getTraceId(), span.getSpanContext().getSpanId()));
    }

    /** The W3C headers an upstream message came with, read from the tracer's copy of its headers. */
    private enum UpstreamHeaders implements TextMapGetter<SpanContextPropagationExtractor> {
        INSTANCE;

        @Override
        public Iterable<String> keys(SpanContextPropagationExtractor carrier) {
            return carrier.keys();
        }

        @Override
        public String get(SpanContextPropagationExtractor carrier, String key) {
            Object value = carrier == null ? null : carrier.get(key);
            return value == null ? null : value.toString();
        }
    }
}
