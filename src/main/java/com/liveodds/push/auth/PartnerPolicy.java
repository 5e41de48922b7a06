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
 * The bearer check of a partner's own endpoints ({@code /v1/liveodds/{partnerId}/...}: fixtures, booking, recovery;
 * contract 16 and 20) as a Camel {@code policy} step: no or a refused token fails with a
 * {@link CamelAuthorizationException} (401), checked first; a valid token of another partner, or a path id that is no
 * partner's, fails with the same 404 (an {@link HttpProblem}), so that neither tells one from the other. The route
 * configuration {@code liveodds-http} answers both; nothing of the header is put into either.
 */
public class PartnerPolicy implements AuthorizationPolicy {

    private final BearerAuthenticator authenticator;

    public PartnerPolicy(BearerAuthenticator authenticator) {
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
                Message message = exchange.getMessage();
                String authorization = message.getHeader("Authorization", String.class);
                if (!authenticator.isAuthorized(authorization)) {
                    exchange.setException(new CamelAuthorizationException("a valid bearer token is required", exchange));
                } else if (authenticator.isNotForPartner(authorization, message.getHeader("partnerId", String.class))) {
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
