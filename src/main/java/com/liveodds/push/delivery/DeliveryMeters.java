package com.liveodds.push.delivery;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * The delivery counters and the push latency histogram of one partner, made once so the hot path only records. Every
 * meter carries the partner's tags ({@code partner=<name>} for a partner of {@code liveodds.partners}, none for the
 * single partner): Prometheus wants the same label keys on every meter of a name, and each mode keeps to one set.
 */
final class DeliveryMeters {

    final Counter delivered;
    final Counter retried;
    final Counter deadLettered;
    final Counter heartbeatsDelivered;
    final Counter heartbeatsFailed;
    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, Timer> latency = new ConcurrentHashMap<>();

    DeliveryMeters(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.tags = tags;
        delivered = Counter.builder("liveodds.pushes.delivered").description("pushes the partner took (2xx)").tags(tags)
                .register(registry);
        retried = Counter.builder("liveodds.pushes.retried").description("push attempts that failed and were retried").tags(tags)
                .register(registry);
        deadLettered = Counter.builder("liveodds.pushes.dead_lettered").description("pushes dead-lettered").tags(tags)
                .register(registry);
        heartbeatsDelivered = Counter.builder("liveodds.heartbeats.delivered").description("heartbeats the partner took").tags(tags)
                .register(registry);
        heartbeatsFailed = Counter.builder("liveodds.heartbeats.failed").description("heartbeats that failed").tags(tags)
                .register(registry);
    }

    /** Messages a later snapshot of their match superseded (contract 17); counted by the queues, not per attempt. */
    static Counter superseded(MeterRegistry registry, Tags tags) {
        return Counter.builder("liveodds.messages.superseded")
                .description("odds superseded by a later snapshot of their match: acknowledged, never pushed").tags(tags)
                .register(registry);
    }

    /** Upstream hand-over to the partner's 2xx, by message type. */
    Timer latency(String type) {
        return latency.computeIfAbsent(type, t -> Timer.builder("liveodds.push.latency")
                .description("time from upstream hand-over to the partner's 2xx")
                .tags(tags).tag("type", t).publishPercentileHistogram().register(registry));
    }
}
