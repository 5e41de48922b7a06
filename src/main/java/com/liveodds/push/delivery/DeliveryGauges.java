package com.liveodds.push.delivery;

import com.liveodds.push.queue.KeyedQueueEndpoint;

import java.time.Duration;
import java.time.Instant;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ops.Meters;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.apache.camel.CamelContext;

/**
 * The gauges of "how late are we" for one partner: backlog, oldest undelivered message, live and retrying matches,
 * labelled {@code partner} for a partner of {@code liveodds.partners}. They are read when scraped, so the hot path pays
 * nothing for them.
 */
public class DeliveryGauges {

    private final LiveMatches liveMatches;
    private final KeyedQueueEndpoint queue;
    private volatile Meters meters;

    public DeliveryGauges(LiveMatches liveMatches, KeyedQueueEndpoint queue) {
        this.liveMatches = liveMatches;
        this.queue = queue;
    }

    /** The meter registry of the bundle ({@code liveoddsMeters}, its partner's view). */
    public void setMeters(Meters meters) {
        this.meters = meters;
    }

    /** Once, at start (routes/status.yaml), when the metrics registry exists. */
    public void register(CamelContext context) {
        Meters partner = Meters.orOf(meters, context);
        MeterRegistry registry = partner.registry();
        Tags tags = partner.tags();
        Gauge.builder("liveodds.backlog.messages", liveMatches, LiveMatches::backlog)
                .description("messages waiting or in retry").tags(tags).register(registry);
        Gauge.builder("liveodds.oldest.undelivered.seconds", this, DeliveryGauges::oldestUndeliveredSeconds)
                .description("age of the oldest message not yet delivered (0 when none is waiting)").tags(tags).register(registry);
        Gauge.builder("liveodds.live.matches", liveMatches, LiveMatches::liveCount)
                .description("matches that get heartbeats").tags(tags).register(registry);
        Gauge.builder("liveodds.matches.retrying", liveMatches, LiveMatches::retryingCount)
                .description("matches whose oldest message failed and waits for another attempt").tags(tags).register(registry);
        // counted by liveoddsDeliveries when it happens; registered here so that it reads 0 before the first time
        DeliveryMeters.superseded(registry, tags);
    }

    private double oldestUndeliveredSeconds() {
        Instant oldest = queue.getOldest();
        return oldest == null ? 0 : Math.max(0, Duration.between(oldest, Instant.now()).toMillis() / 1000.0);
    }
}
