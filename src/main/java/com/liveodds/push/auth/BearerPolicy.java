package com.liveodds.push.auth;

import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelAuthorizationException;
import org.apache.camel.Exchange;
import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.Route;
import org.apache.camel.spi.AuthorizationPolicy;
import org.apache.camel.support.processor.DelegateAsyncProcessor;

/**
 * The bearer check of an HTTP route as a Camel {@code policy} step: the steps it wraps run only for a request whose
 * {@code Authorization} header the {@link BearerAuthenticator} accepts; any other request fails with a
 * {@link CamelAuthorizationException}, which the route configuration {@code liveodds-http} answers 401 with
 * {@code WWW-Authenticate: Bearer}. Nothing of the header is put into the exception.
 */
public class BearerPolicy implements AuthorizationPolicy {

    private final BearerAuthenticator authenticator;

    public BearerPolicy(BearerAuthenticator authenticator) {
        this.authenticator = authenticator;
    }

    @Override
    public void beforeWrap(Route route, NamedNode definition) {
        // nothing to prepare: the authenticator checked its settings when it started
    }

    @Override
    public Processor wrap(Route route, Processor processor) {
        return new DelegateAsyncProcessor(processor) {
            @Override
            public boolean process(Exchange exchange, AsyncCallback callback) {
                if (authenticator.isAuthorized(exchange.getMessage().getHeader("Authorization", String.class))) {
                    return super.process(exchange, callback);
                }
                exchange.setException(new CamelAuthorizationException("a valid bearer token is required", exchange));
                callback.done(true);
                return true;
            }
        };
    }
}
