package com.liveodds.push.bench;

import java.util.Map;

import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.Producer;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The tuned camel-http client of contract 23, the baseline a push's cost is set against: camel-core and camel-http
 * alone, configured as a Camel expert would for this one job. Per partner a component (its connection pool), an
 * endpoint resolved once and a producer created once, each push an exchange handed straight to that producer (no {@code ProducerTemplate.send(uri)}, no
 * {@code toD}, no route); no request headers copied to the answer, response headers skipped, auth cache and
 * connection state off, a pooled kept-alive connection per match thread, no client retries or redirects (one
 * attempt is one request, as the service's), a non-2xx answer a status rather than an exception, no stream caching.
 */
final class CamelHttpClient implements AutoCloseable {

    private final DefaultCamelContext camel = new DefaultCamelContext();

    private final int connectionsPerPartner;
    private int partners;

    /** connectionsPerPartner: at least the pushes one partner has in flight at once (its match threads). */
    CamelHttpClient(int connectionsPerPartner) {
        this.connectionsPerPartner = connectionsPerPartner;
        camel.setStreamCaching(false);
        camel.start();
    }

    /**
     * The partner at this base URL: a component of its own (its own connection pool, as each partner of the service
     * has), its endpoint and producer, made here once; the push's path goes in {@code CamelHttpPath}.
     */
    Baseline.Wire to(String baseUrl) throws Exception {
        HttpComponent http = new HttpComponent();
        http.setCopyHeaders(false);
        http.setSkipResponseHeaders(true);
        http.setAuthCachingDisabled(true);
        http.setConnectionStateDisabled(true);
        http.setCookieManagementDisabled(true);
        http.setAutomaticRetriesDisabled(true);
        http.setRedirectHandlingDisabled(true);
        http.setConnectionsPerRoute(connectionsPerPartner);
        http.setMaxTotalConnections(connectionsPerPartner);
        String name = "partner" + partners++;
        camel.addComponent(name, http);
        Endpoint endpoint = camel.getEndpoint(name + ":" + baseUrl + "?httpMethod=POST&throwExceptionOnFailure=false");
        Producer producer = endpoint.createProducer();
        // started now, stopped with the context
        camel.addService(producer);
        Baseline.Poster poster = (String target, Map<String, String> headers, byte[] body) -> {
            Exchange exchange = endpoint.createExchange();
            Message request = exchange.getIn();
            headers.forEach(request::setHeader);
            request.setHeader(Exchange.HTTP_PATH, target);
            request.setBody(body);
            producer.process(exchange);
            if (exchange.getException() != null) {
                throw exchange.getException();
            }
            return exchange.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        };
        // the producer is thread-safe and pools its connections: every match thread shares it
        return () -> poster;
    }

    @Override
    public void close() {
        camel.stop();
    }
}
