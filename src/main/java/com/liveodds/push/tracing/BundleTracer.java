package com.liveodds.push.tracing;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.ops.TraceIds;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;
import org.apache.camel.NamedNode;
import org.apache.camel.Route;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.component.jms.JmsComponent;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.model.Model;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.opentelemetry2.OpenTelemetryTracer;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.support.ExchangeHelper;
import org.apache.camel.telemetry.Op;

/**
 * Camel's OpenTelemetry tracer (camel-opentelemetry2) kept to the bundle's routes, so that a host's routes and
 * exchanges get no span from it: a span for each run of a {@code liveodds-} route (a source's receipt, ingest, a push,
 * an attempt) and one CLIENT span per request to a partner, nothing for Camel's hops between routes. The heartbeat
 * timer has none, so each heartbeat starts a trace of its own.
 * <p>
 * Camel keeps an exchange's open spans in an exchange property (copied with the exchange); beside it this keeps, in
 * {@value #SPANS}, the OpenTelemetry span of each, so that the partner call can be described (partner, match, type,
 * attempt, HTTP status) and the log lines of the exchange name its trace ({@link TraceIds#PROPERTY}).
 */
public class BundleTracer extends OpenTelemetryTracer {

    /** Exchange property: the spans this tracer opened on the exchange, innermost first ({@link Opened}). */
    static final String SPANS = "liveoddsSpans";
    private static final String ROUTES = "liveodds-";
    private static final String HEARTBEAT_TIMER = "liveodds-heartbeat-timer";
    /** Variable of a push or heartbeat in delivery, and its attempts so far (this one included). */
    private static final String DELIVERY = "delivery";
    private static final String ATTEMPT = "${variable.delivery.attempts}";

    private final SpanKindTracer spans;
    private final OpenTelemetrySdk sdk;
    private final Map<String, Map<String, Object>> partnerOfRoute = new ConcurrentHashMap<>();
    private volatile Expression attempt;

    BundleTracer(SpanKindTracer spans, OpenTelemetrySdk sdk) {
        this.spans = spans;
        this.sdk = sdk;
    }

    /** One span of the exchange, and the span it is inside of. */
    record Opened(Span span, Endpoint endpoint, Opened enclosing) {
    }

    @Override
    public RoutePolicy createRoutePolicy(CamelContext camelContext, String routeId, NamedNode route) {
        boolean traced = routeId != null && routeId.startsWith(ROUTES) && !routeId.startsWith(HEARTBEAT_TIMER);
        return traced ? super.createRoutePolicy(camelContext, routeId, route) : null;
    }

    @Override
    protected void beginEventSpan(Exchange exchange, Endpoint endpoint, Op op) throws Exception {
        Opened enclosing = exchange.getProperty(SPANS, Opened.class);
        // sends: only a partner call from inside a traced exchange (route hops are the routes' spans already)
        if (op == Op.EVENT_SENT && (enclosing == null || !(endpoint.getComponent() instanceof HttpComponent))) {
            return;
        }
        SpanKind kind = op == Op.EVENT_SENT ? SpanKind.CLIENT : receivingKind(endpoint);
        spans.nextKind(kind);
        try {
            super.beginEventSpan(exchange, endpoint, op);
        } finally {
            spans.nextKind(null);
        }
        // Camel made the new span current on this thread just now
        Span span = Span.current();
        if (kind == SpanKind.CLIENT) {
            describeAttempt(span, exchange);
        }
        opened(exchange, new Opened(span, endpoint, enclosing));
    }

    @Override
    protected void endEventSpan(Exchange exchange, Endpoint endpoint) throws Exception {
        Opened current = exchange.getProperty(SPANS, Opened.class);
        // the end of a send that began no span (a hop between routes)
        if (current == null || current.endpoint() != endpoint) {
            return;
        }
        Integer status = exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status != null && endpoint.getComponent() instanceof HttpComponent) {
            current.span().setAttribute("http.response.status_code", status.longValue());
        }
        opened(exchange, current.enclosing());
        super.endEventSpan(exchange, endpoint);
    }

    private static SpanKind receivingKind(Endpoint endpoint) {
        if (endpoint.getComponent() instanceof PlatformHttpComponent) {
            return SpanKind.SERVER;
        }
        boolean broker = endpoint.getComponent() instanceof JmsComponent || endpoint.getComponent() instanceof KafkaComponent;
        return broker ? SpanKind.CONSUMER : SpanKind.INTERNAL;
    }

    private static void opened(Exchange exchange, Opened top) {
        if (top == null) {
            exchange.removeProperty(SPANS);
            exchange.removeProperty(TraceIds.PROPERTY);
            return;
        }
        exchange.setProperty(SPANS, top);
        SpanContext context = top.span().getSpanContext();
        exchange.setProperty(TraceIds.PROPERTY, new TraceIds(context.getTraceId(), context.getSpanId()));
    }

    /**
     * An attempt of a push or heartbeat, told by the variables the push route sets for its POST and by the template
     * parameters of the route that sends it.
     */
    private void describeAttempt(Span span, Exchange exchange) {
        if (exchange.getVariable(DELIVERY) == null) {
            return;
        }
        Map<String, Object> partner = partnerOf(ExchangeHelper.getRoute(exchange));
        Object name = partner.get("partner");
        Object id = partner.get("partnerId");
        if (name != null && !name.toString().isEmpty()) {
            span.setAttribute("liveodds.partner.name", name.toString());
        }
        if (id != null) {
            span.setAttribute("liveodds.partner.id", id.toString());
        }
        span.setAttribute("liveodds.match", exchange.getVariable("matchId", String.class));
        span.setAttribute("liveodds.message_type", exchange.getVariable("messageType", String.class));
        span.setAttribute("liveodds.message_id", exchange.getVariable("messageId", String.class));
        Long attempt = attempt().evaluate(exchange, Long.class);
        if (attempt != null) {
            span.setAttribute("liveodds.attempt", attempt);
        }
    }

    private Expression attempt() {
        Expression expression = attempt;
        if (expression == null) {
            attempt = expression = getCamelContext().resolveLanguage("simple").createExpression(ATTEMPT);
            expression.init(getCamelContext());
        }
        return expression;
    }

    /** The partner parameters ({@code partner}, {@code partnerId}) of the route template the POST's route came from. */
    private Map<String, Object> partnerOf(Route route) {
        if (route == null) {
            return Map.of();
        }
        return partnerOfRoute.computeIfAbsent(route.getRouteId(), id -> {
            Model model = getCamelContext().getCamelContextExtension().getContextPlugin(Model.class);
            RouteDefinition definition = model == null ? null : model.getRouteDefinition(id);
            Map<String, Object> parameters = definition == null ? null : definition.getTemplateParameters();
            Map<String, Object> partner = new HashMap<>();
            if (parameters != null) {
                partner.put("partner", parameters.get("partner"));
                partner.put("partnerId", parameters.get("partnerId"));
            }
            return partner;
        });
    }

    /** The spans still buffered are sent before the SDK stops (with the context). */
    @Override
    protected void doShutdown() {
        super.doShutdown();
        sdk.shutdown().join(10, TimeUnit.SECONDS);
    }
}
