package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.LinkedHashMap;
import java.util.Map;

import com.liveodds.push.queue.KeyedQueueComponent;
import com.liveodds.push.queue.KeyedQueueConstants;
import com.liveodds.push.queue.KeyedQueueEndpoint;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Liveness check {@code delivery} over every partner's queue (contract 16): an Error in one partner's delivery turns
 * it DOWN and names that partner; the single partner's message is as it always was.
 */
class DeliveryHealthCheckTest {

    private final Map<String, KeyedQueueEndpoint> queues = new LinkedHashMap<>();
    private CamelContext context;

    @BeforeEach
    void start() throws Exception {
        context = new DefaultCamelContext();
        context.getRegistry().bind("liveoddsQueue", new KeyedQueueComponent());
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("liveoddsQueue:push-a").log("pushed to a");
                // what a delivery worker meets when the JVM is in trouble
                from("liveoddsQueue:push-b").process(e -> {
                    throw new OutOfMemoryError("test: no heap left");
                });
            }
        });
        context.start();
        for (String partner : new String[] {"a", "b"}) {
            queues.put(partner, context.getEndpoint("liveoddsQueue:push-" + partner, KeyedQueueEndpoint.class));
        }
    }

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void anErrorInOnePartnersDeliveryTurnsItDownNamingThePartner() {
        DeliveryHealthCheck check = new DeliveryHealthCheck(queues);
        assertThat(call(check).getState()).isEqualTo(HealthCheck.State.UP);

        push("a");
        await().until(() -> queues.get("a").getHeld() == 0);
        assertThat(call(check).getState()).as("a delivers").isEqualTo(HealthCheck.State.UP);
        push("b");
        await().until(() -> queues.get("b").getFatalError() != null);

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
        push("b");
        await().until(() -> queues.get("b").getFatalError() != null);
        assertThat(call(check).getMessage()).hasValue("delivery failed with OutOfMemoryError; restart the service");
    }

    private void push(String partner) {
        context.createProducerTemplate().sendBodyAndHeader("liveoddsQueue:push-" + partner, "{}", KeyedQueueConstants.KEY, "match:1");
    }

    private static HealthCheck.Result call(DeliveryHealthCheck check) {
        HealthCheckResultBuilder builder = HealthCheckResultBuilder.on(check);
        check.doCall(builder, Map.of());
        return builder.build();
    }
}
