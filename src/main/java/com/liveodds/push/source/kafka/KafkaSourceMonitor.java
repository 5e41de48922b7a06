package com.liveodds.push.source.kafka;

import java.util.Optional;

import com.liveodds.push.source.SourceMonitor;
import org.apache.camel.CamelContext;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * The Kafka source can receive while it holds at least one partition and its consumers are connected to the
 * cluster. A Kafka consumer does not fail when the brokers go away, it just polls nothing, so connectedness is read
 * from the consumer's own {@code connection-count} metric.
 */
public class KafkaSourceMonitor implements SourceMonitor {

    private final KafkaPartitions partitions;
    private final String routeId;

    /** For the partitions of one partner's group, read by the route {@code routeId}. */
    public KafkaSourceMonitor(KafkaPartitions partitions, String routeId) {
        this.partitions = partitions;
        this.routeId = routeId;
    }

    @Override
    public String source() {
        return "kafka";
    }

    @Override
    public String routeId() {
        return routeId;
    }

    @Override
    public Optional<String> problem(CamelContext context) {
        if (partitions.consumers().isEmpty()) {
            return Optional.of("not yet subscribed");
        }
        for (Consumer<?, ?> consumer : partitions.consumers()) {
            if (connections(consumer) <= 0) {
                return Optional.of("broker unreachable");
            }
        }
        if (partitions.owned().isEmpty()) {
            return Optional.of("no partition assigned");
        }
        return Optional.empty();
    }

    private static double connections(Consumer<?, ?> consumer) {
        return consumer.metrics().entrySet().stream()
                .filter(e -> "connection-count".equals(e.getKey().name()) && "consumer-metrics".equals(e.getKey().group()))
                .map(e -> e.getValue().metricValue())
                .filter(Number.class::isInstance)
                .mapToDouble(v -> ((Number) v).doubleValue())
                .findFirst().orElse(0);
    }
}
