package com.liveodds.push.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelAuthorizationException;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The policy alone, in a plain CamelContext: the steps it wraps run only for an accepted bearer token. */
class BearerPolicyTest {

    private final AtomicInteger listingsRead = new AtomicInteger();
    private CamelContext context;

    @BeforeEach
    void start() throws Exception {
        BearerAuthenticator authenticator = new BearerAuthenticator();
        authenticator.setTokens("right-token");
        authenticator.start();
        context = new DefaultCamelContext();
        context.getRegistry().bind("liveoddsBearerPolicy", new BearerPolicy(authenticator));
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:guarded").errorHandler(noErrorHandler())
                        .policy("liveoddsBearerPolicy")
                        .process(exchange -> exchange.getMessage().setBody("listing " + listingsRead.incrementAndGet()));
            }
        });
        context.start();
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void anAcceptedTokenReachesTheWrappedSteps() {
        Exchange answer = send("Bearer right-token");
        assertThat(answer.getException()).isNull();
        assertThat(answer.getMessage().getBody(String.class)).isEqualTo("listing 1");
    }

    @Test
    void anyOtherRequestFailsWithAnAuthorizationErrorBeforeTheWrappedStepsRun() {
        for (String authorization : new String[] {null, "", "Bearer", "Bearer ", "Bearer wrong-token", "Basic cmlnaHQtdG9rZW4=",
                "right-token", "Bearer right-token-and-more", "Bearer right-tokeN", "Bearer right-token\r\nX-Evil: 1"}) {
            Exchange answer = send(authorization);
            assertThat(answer.getException()).as(String.valueOf(authorization)).isInstanceOf(CamelAuthorizationException.class)
                    .message().doesNotContain("token=").doesNotContain("right-token").doesNotContain("wrong");
        }
        assertThat(listingsRead).hasValue(0);
    }

    private Exchange send(String authorization) {
        return context.createProducerTemplate().request("direct:guarded", exchange -> {
            if (authorization != null) {
                exchange.getMessage().setHeader("Authorization", authorization);
            }
        });
    }
}
