package com.liveodds.push.delivery;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** The delivery counters and the push latency histogram, made once so the hot path only records. */
final class DeliveryMeters {

    final Counter delivered;
    final Counter retried;
    final Counter deadLettered;
    final Counter heartbeatsDelivered;
    final Counter heartbeatsFailed;
    private final MeterRegistry registry;
    private final Map<String, Timer> latency = new ConcurrentHashMap<>();

    DeliveryMeters(MeterRegistry registry) {
        this.registry = registry;
        delivered = Counter.builder("liveodds.pushes.delivered").description("pushes the partner took (2xx)").register(registry);
        retried = Counter.builder("liveodds.pushes.retried").description("push attempts that failed and were retried").register(registry);
        deadLettered = Counter.builder("liveodds.pushes.dead_lettered").description("pushes dead-lettered").register(registry);
        heartbeatsDelivered = Counter.builder("liveodds.heartbeats.delivered").description("heartbeats the partner took").register(registry);
        heartbeatsFailed = Counter.builder("liveodds.heartbeats.failed").description("heartbeats that failed").register(registry);
    }

    /** Messages a later snapshot of their match superseded (contract 17); counted by the queues, not per attempt. */
    static Counter superseded(MeterRegistry registry) {
        return Counter.builder("liveodds.messages.superseded")
                .description("odds superseded by a later snapshot of their match: acknowledged, never pushed").register(registry);
    }

    /** Upstream hand-over to the partner's 2xx, by message type. */
    Timer latency(String type) {
        return latency.computeIfAbsent(type, t -> Timer.builder("liveodds.push.latency")
                .description("time from upstream hand-over to the partner's 2xx")
                .tag("type", t).publishPercentileHistogram().register(registry));
    }
}
