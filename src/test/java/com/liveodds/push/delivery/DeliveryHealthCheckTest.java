package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import com.liveodds.push.heartbeat.LiveMatches;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Liveness check {@code delivery} over every partner's queues (contract 16): an Error in one partner's delivery turns
 * it DOWN and names that partner; the single partner's message is as it always was.
 */
class DeliveryHealthCheckTest {

    private final ShutdownGate gate = new ShutdownGate();
    private final Map<String, MatchQueues> queues = new LinkedHashMap<>();
    private CamelContext context;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        gate.setCamelContext(context);
        gate.start();
        for (String partner : new String[] {"a", "b"}) {
            MatchQueues q = new MatchQueues(new LiveMatches(), gate);
            q.setCamelContext(context);
            q.setPushUri("direct:push-" + partner);
            queues.put(partner, q);
        }
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:push-a").log("pushed to a");
                // what a delivery worker meets when the JVM is in trouble
                from("direct:push-b").process(e -> e.setException(new OutOfMemoryError("test: no heap left")));
            }
        });
        context.start();
    }

    @AfterEach
    void stop() {
        context.stop();
        gate.stop();
    }

    @Test
    void anErrorInOnePartnersDeliveryTurnsItDownNamingThePartner() {
        DeliveryHealthCheck check = new DeliveryHealthCheck(queues);
        assertThat(call(check).getState()).isEqualTo(HealthCheck.State.UP);

        push(queues.get("a"));
        assertThat(call(check).getState()).as("a delivers").isEqualTo(HealthCheck.State.UP);
        push(queues.get("b"));
        await().atMost(Duration.ofSeconds(5)).until(() -> queues.get("b").fatalError() != null);

        HealthCheck.Result down = call(check);
        assertThat(down.getState()).isEqualTo(HealthCheck.State.DOWN);
        assertThat(down.getMessage()).hasValue("delivery to partner b failed with OutOfMemoryError; restart the service");
        assertThat(check.isReadiness()).isFalse();
        assertThat(check.isLiveness()).isTrue();
        assertThat(check.getId()).isEqualTo("delivery");
    }

    @Test
    void theSinglePartnersMessageStaysAsItWas() {
        DeliveryHealthCheck check = new DeliveryHealthCheck(Map.of("", queues.get("b")));
        push(queues.get("b"));
        await().atMost(Duration.ofSeconds(5)).until(() -> queues.get("b").fatalError() != null);
        assertThat(call(check).getMessage()).hasValue("delivery failed with OutOfMemoryError; restart the service");
    }

    private void push(MatchQueues q) {
        Exchange exchange = context.getEndpoint("direct:push-a").createExchange(ExchangePattern.InOut);
        exchange.getMessage().setBody(new Push("m-1", "match:1", "odds", "{}", "{}", Instant.now()));
        q.process(exchange, doneSync -> { });
    }

    private static HealthCheck.Result call(DeliveryHealthCheck check) {
        HealthCheckResultBuilder builder = HealthCheckResultBuilder.on(check);
        check.doCall(builder, Map.of());
        return builder.build();
    }
}
