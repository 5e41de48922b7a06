package com.liveodds.push.support;

import java.time.Duration;

import com.liveodds.push.partner.PartnerAnswer;
import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.partner.PartnerTls;
import com.liveodds.push.token.PartnerTokenProvider;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.impl.DefaultCamelContext;

/**
 * The bundle's {@code liveoddsHttp} component (built by {@link PartnerHttp} exactly as routes/beans.yaml wires it) in a
 * CamelContext of its own, and one POST on it with the push's headers, as the push route sends it.
 */
public final class PartnerCalls implements AutoCloseable {

    private final PartnerHttp http;
    private final DefaultCamelContext context = new DefaultCamelContext();
    private final ProducerTemplate template;

    public PartnerCalls(PartnerTls tls, Duration timeout, int maxInFlight) {
        http = new PartnerHttp(tls, timeout, maxInFlight);
        context.addComponent(PartnerTokenProvider.COMPONENT, http.component());
        context.start();
        template = context.createProducerTemplate();
    }

    public CamelContext context() {
        return context;
    }

    /** One attempt: POST {@code url} with the contract's headers; the answer as the push's verdict reads it. */
    public PartnerAnswer post(String url, String authorization, String idempotencyKey, byte[] body) {
        Exchange sent = template.send(PartnerTokenProvider.COMPONENT + ":" + url + "?httpMethod=POST&throwExceptionOnFailure=false",
                exchange -> {
                    exchange.getMessage().setHeader("Authorization", authorization);
                    exchange.getMessage().setHeader("Content-Type", "application/json");
                    exchange.getMessage().setHeader("Idempotency-Key", idempotencyKey);
                    exchange.getMessage().setBody(body);
                });
        return PartnerAnswer.of(sent, sent.getException(), PartnerAnswer.KEPT);
    }

    @Override
    public void close() {
        context.stop();
        http.stop();
    }
}
