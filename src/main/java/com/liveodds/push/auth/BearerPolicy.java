package com.liveodds.push.auth;

import com.liveodds.push.httpapi.HttpProblem;
import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelAuthorizationException;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
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
 * <p>
 * Bound to partners (a partner's own endpoints {@code /v1/liveodds/{partnerId}/...}: fixtures, booking, recovery;
 * contract 16 and 20), a valid token of another partner, or a path id that is no partner's, then fails with the same
 * 404 ({@link HttpProblem}), so that neither tells one from the other.
 */
public class BearerPolicy implements AuthorizationPolicy {

    private final BearerAuthenticator authenticator;
    private final boolean boundToPartner;

    public BearerPolicy(BearerAuthenticator authenticator) {
        this(authenticator, false);
    }

    /** @param boundToPartner the token must be one of the partner whose id is the path's {@code partnerId} */
    public BearerPolicy(BearerAuthenticator authenticator, boolean boundToPartner) {
        this.authenticator = authenticator;
        this.boundToPartner = boundToPartner;
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
                Message message = exchange.getMessage();
                String authorization = message.getHeader("Authorization", String.class);
                if (!authenticator.isAuthorized(authorization)) {
                    exchange.setException(new CamelAuthorizationException("a valid bearer token is required", exchange));
                } else if (boundToPartner && authenticator.isNotForPartner(authorization, message.getHeader("partnerId", String.class))) {
                    exchange.setException(new HttpProblem(404, "not_found", "unknown partner id"));
                } else {
                    return super.process(exchange, callback);
                }
                callback.done(true);
                return true;
            }
        };
    }
}
