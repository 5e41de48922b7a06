package com.liveodds.push.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.liveodds.push.ingest.RejectedMessageException;
import com.liveodds.push.ingest.Rejections;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** The one meter registry of the bundle's meters, alone in a plain CamelContext. */
class MetersTest {

    @Test
    void theHostsMetricsRegistryIsTheOneTheBundlesMetersGoTo() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            SimpleMeterRegistry host = new SimpleMeterRegistry();
            context.getRegistry().bind("metricsRegistry", host);
            Meters meters = new Meters();
            meters.setCamelContext(context);
            assertThat(meters.registry()).isSameAs(host);
        }
    }

    @Test
    void aHostWithoutMetricsGetsARegistryOfTheBundlesOwnTheSameEveryTime() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            Meters meters = new Meters();
            meters.setCamelContext(context);
            MeterRegistry own = meters.registry();
            assertThat(own).isNotNull().isSameAs(meters.registry());
            // a bean handed no Meters finds the one of its context
            context.getRegistry().bind("liveoddsMeters", meters);
            assertThat(Meters.of(context)).isSameAs(meters);
        }
    }

    @Test
    void aRegistryHandedOverWinsAndTheBeansCountThere() {
        SimpleMeterRegistry given = new SimpleMeterRegistry();
        Meters meters = new Meters();
        meters.setRegistry(given);
        Rejections rejections = new Rejections();
        rejections.setMeters(meters);
        rejections.rejected(RejectedMessageException.Reason.NOT_JSON);
        rejections.rejected(RejectedMessageException.Reason.NOT_JSON);
        assertThat(given.find("liveodds.messages.rejected").tag("reason", "not_json").counter().count()).isEqualTo(2);
    }
}
