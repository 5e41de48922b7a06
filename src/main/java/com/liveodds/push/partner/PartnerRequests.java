package com.liveodds.push.partner;

import java.time.Duration;
import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * One request to the partner through the component {@value #COMPONENT} from plain Java, outside the routes: the same
 * pool, TLS, whole-attempt deadline and 64 KiB cap as every push, one request per call (no retry, no redirect).
 * Usable in the bundle's CamelContext or, through {@link #standalone}, in one of its own.
 */
public final class PartnerRequests implements AutoCloseable {

    /** The camel-http component of every request to the partner (routes/beans.yaml). */
    public static final String COMPONENT = "liveoddsHttp";

    private final ProducerTemplate template;
    /** The context made by {@link #standalone}, stopped by {@link #close()}; null when given. */
    private final CamelContext own;
    private final PartnerHttp ownHttp;

    /** Requests through the {@value #COMPONENT} of this context (the bundle's, or a host's that loaded it). */
    public PartnerRequests(CamelContext context) {
        this(context, null, null);
    }

    private PartnerRequests(CamelContext context, CamelContext own, PartnerHttp ownHttp) {
        this.template = context.createProducerTemplate();
        this.own = own;
        this.ownHttp = ownHttp;
    }

    /** A CamelContext of its own with a {@value #COMPONENT} of this TLS and time-out (a command, a test). */
    public static PartnerRequests standalone(PartnerTls tls, Duration timeout) {
        PartnerHttp http = new PartnerHttp(tls, timeout, 1);
        DefaultCamelContext context = new DefaultCamelContext();
        context.addComponent(COMPONENT, http.component());
        context.start();
        return new PartnerRequests(context, context, http);
    }

    /**
     * Sends one request and returns its answer (status, {@code Retry-After}, {@code Location}, up to 4 KiB of body as
     * text), or why there was none (time-out, connection, TLS) as a status-0 answer; never throws for the partner's
     * doing.
     *
     * @param method  {@code GET}, {@code POST}...
     * @param url     absolute http:// or https:// URL
     * @param headers exactly the headers to send (nothing else of the caller's goes out)
     * @param body    the request body, or null
     */
    public PartnerAnswer send(String method, String url, Map<String, String> headers, byte[] body) {
        String uri = COMPONENT + ":" + url + (url.contains("?") ? "&" : "?") + "httpMethod=" + method
                + "&throwExceptionOnFailure=false";
        Exchange sent = template.send(uri, exchange -> {
            headers.forEach(exchange.getMessage()::setHeader);
            exchange.getMessage().setBody(body);
        });
        return PartnerAnswer.of(sent, sent.getException(), PartnerAnswer.KEPT);
    }

    @Override
    public void close() {
        try {
            template.stop();
        } finally {
            if (own != null) {
                own.stop();
                ownHttp.stop();
            }
        }
    }
}
