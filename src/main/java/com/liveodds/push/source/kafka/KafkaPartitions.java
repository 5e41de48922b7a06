package com.liveodds.push.source.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ingest.EnvelopeValidator;
import com.liveodds.push.ingest.RejectedMessageException;
import com.liveodds.push.ingest.UpstreamMessage;
import com.liveodds.push.matchid.MatchIdResolver;
import com.liveodds.push.settings.Durations;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.component.kafka.consumer.support.subcription.SubscribeAdapter;
import org.apache.camel.component.kafka.consumer.support.subcription.TopicInfo;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions of the upstream topic this instance owns, and the live matches that come with them.
 * <p>
 * camel-kafka 4.18 has no user rebalance listener option, but it subscribes through a {@link SubscribeAdapter}
 * looked up in the registry under {@code subscribeAdapter}, handing over its own listener (which commits on
 * revocation). This adapter wraps that listener: on revocation the partition's matches stop getting heartbeats
 * here; on assignment the partition's recent, already committed records are read back with a separate consumer to
 * adopt its live matches, so their heartbeats move with the partition without any message being pushed again.
 * <p>
 * Records are handled one at a time on the poll thread (one per poll), each waiting for its delivery before the
 * next, and revocation happens inside poll: so a partition is let go right after its record in flight, no message
 * of it is in flight here afterwards, and what the client had prefetched is dropped uncommitted.
 */
public class KafkaPartitions implements SubscribeAdapter {

    static final String COMMIT = "liveodds.kafka.commit";
    static final String PARTITION = "liveodds.kafka.partition";
    static final String UPSTREAM = "liveodds.kafka.upstream";
    private static final Logger LOG = LoggerFactory.getLogger(KafkaPartitions.class);

    private final LiveMatches liveMatches;
    private final EnvelopeValidator validator;
    private final MatchIdResolver resolver;
    private final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    private final Map<TopicPartition, Set<String>> matchesOf = new ConcurrentHashMap<>();
    private final Set<Consumer<?, ?>> consumers = ConcurrentHashMap.newKeySet();
    private final ExecutorService lookBacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "kafka-look-back"));
    private volatile String brokers;
    private volatile Duration lookBack = Duration.ofMinutes(30);
    private volatile int lookBackRecords = 10_000;

    public KafkaPartitions(LiveMatches liveMatches, EnvelopeValidator validator, MatchIdResolver resolver) {
        this.liveMatches = liveMatches;
        this.validator = validator;
        this.resolver = resolver;
    }

    public void setBrokers(String brokers) {
        this.brokers = brokers;
    }

    /** How far back a new owner reads a partition to find its live matches: the live period of a match. */
    public void setLookBack(String lookBack) {
        this.lookBack = Durations.parse(lookBack);
    }

    /** At most this many records per partition are read back, whatever the time window. */
    public void setLookBackRecords(int lookBackRecords) {
        this.lookBackRecords = lookBackRecords;
    }

    @Override
    public void subscribe(Consumer<?, ?> consumer, ConsumerRebalanceListener camelListener, TopicInfo topicInfo) {
        consumers.add(consumer);
        ConsumerRebalanceListener listener = new Handover(consumer, camelListener);
        if (topicInfo.isPattern()) {
            consumer.subscribe(topicInfo.getPattern(), listener);
        } else {
            consumer.subscribe(topicInfo.getTopics(), listener);
        }
    }

    /** Before a record goes to ingest: keeps what the delivery route would otherwise strip with the headers. */
    public void receiving(Exchange exchange) {
        exchange.setProperty(COMMIT, exchange.getMessage().getHeader(KafkaConstants.MANUAL_COMMIT, KafkaManualCommit.class));
        exchange.setProperty(PARTITION, new TopicPartition(exchange.getMessage().getHeader(KafkaConstants.TOPIC, String.class),
                exchange.getMessage().getHeader(KafkaConstants.PARTITION, Integer.class)));
        exchange.setProperty(UPSTREAM, exchange.getMessage().getBody(String.class));
    }

    /** The record is delivered or dead-lettered: remember its match with its partition, then commit its offset. */
    public void delivered(Exchange exchange) {
        TopicPartition partition = exchange.getProperty(PARTITION, TopicPartition.class);
        matchOf(exchange.getProperty(UPSTREAM, String.class)).ifPresent(match -> remember(partition, match));
        KafkaManualCommit commit = exchange.getProperty(COMMIT, KafkaManualCommit.class);
        try {
            commit.commit();
        } catch (RuntimeException e) {
            // failing the exchange here would only push the message again; the offset is recorded with Camel, which
            // commits it when the partition is revoked, and the partition's next commit covers it as well
            if (causedBy(e, RebalanceInProgressException.class)) {
                LOG.debug("Commit of a record of {} deferred: a rebalance is in progress", partition);
            } else {
                LOG.warn("A record of {} was delivered but its offset not committed ({}); if the partition moves before its"
                        + " next commit, its new owner pushes the record again", partition, e.getMessage());
            }
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** The match a record belongs to, or empty for {@code alive} and for records the ingest route rejects. */
    Optional<String> matchOf(String body) {
        try {
            UpstreamMessage message = validator.validate(body);
            // UnresolvableMatchException is a RejectedMessageException too
            return message.isAlive() ? Optional.empty() : Optional.of(resolver.resolve(message.fightMetadata()));
        } catch (RejectedMessageException e) {
            return Optional.empty();
        }
    }

    private void remember(TopicPartition partition, String match) {
        if (partition != null && owned.contains(partition)) {
            matchesOf.computeIfAbsent(partition, p -> ConcurrentHashMap.newKeySet()).add(match);
        }
    }

    public Set<TopicPartition> owned() {
        return Set.copyOf(owned);
    }

    Set<Consumer<?, ?>> consumers() {
        return consumers;
    }

    public void stop() {
        lookBacks.shutdownNow();
    }

    private void release(Collection<TopicPartition> partitions, String why) {
        for (TopicPartition partition : partitions) {
            owned.remove(partition);
            Set<String> matches = matchesOf.remove(partition);
            if (matches != null) {
                matches.forEach(liveMatches::forget);
            }
            LOG.info("Partition {} {}: {} live matches handed over", partition, why, matches == null ? 0 : matches.size());
        }
    }

    private void takeOver(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        owned.addAll(partitions);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            LOG.info("Partition {} assigned, starting at committed offset {}", partition, offset == null ? "none" : offset.offset());
            if (offset != null && offset.offset() > 0) {
                lookBacks.submit(() -> adoptLiveMatches(partition, offset.offset()));
            }
        }
    }

    private void adoptLiveMatches(TopicPartition partition, long committedOffset) {
        try {
            Set<String> adopted = new KafkaLookBack(brokers, lookBack, lookBackRecords)
                    .read(partition, committedOffset, body -> matchOf(body));
            if (!owned.contains(partition)) {
                return;
            }
            adopted.forEach(match -> {
                liveMatches.adopt(match);
                remember(partition, match);
            });
            LOG.info("Partition {}: adopted {} live matches from its records before offset {}", partition, adopted.size(),
                    committedOffset);
        } catch (RuntimeException e) {
            LOG.warn("Partition {}: could not read back its recent records ({}); its idle matches get heartbeats again"
                    + " with their next message", partition, e.toString());
        }
    }

    /** Camel's listener first (it commits what was handled), then the heartbeats follow the partitions. */
    private final class Handover implements ConsumerRebalanceListener {
        private final Consumer<?, ?> consumer;
        private final ConsumerRebalanceListener camel;

        Handover(Consumer<?, ?> consumer, ConsumerRebalanceListener camel) {
            this.consumer = consumer;
            this.camel = camel;
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            camel.onPartitionsRevoked(partitions);
            release(partitions, "revoked");
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            camel.onPartitionsLost(partitions);
            release(partitions, "lost");
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            camel.onPartitionsAssigned(partitions);
            takeOver(consumer, partitions);
        }
    }
}
