package com.liveodds.push.source.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;

import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ingest.EnvelopeValidator;
import com.liveodds.push.ingest.MatchIdResolver;
import com.liveodds.push.ingest.RejectedMessageException;
import com.liveodds.push.ingest.UpstreamMessage;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.spi.ExecutorServiceManager;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions of the upstream topic this instance owns, what of them is finished, and the live matches that
 * come with them.
 * <p>
 * Records are handed to delivery without waiting, so the poll thread keeps reading the other matches (and
 * upstream's alive records) while a match is in retry. Each record's exchange carries a completion that marks its
 * offset finished when it is delivered or dead-lettered; the offset committed per partition is the end of the
 * contiguous finished prefix ({@link PartitionProgress}), committed from the poll thread (a Kafka consumer is not
 * thread-safe) before each record is handed on and when the partition is revoked. Camel itself commits nothing
 * (auto and manual commit are off on the route).
 * <p>
 * camel-kafka 4.18 has no rebalance listener option; the source's consumers come from its own component
 * ({@link KafkaSourceComponent}), whose consumers subscribe with {@link #listenerFor}, wrapping Camel's listener. (A
 * SubscribeAdapter bean would not do: camel-kafka looks it up by name for every Kafka consumer of the context, a host
 * application's included.) On revocation the partition's records still queued for delivery are withdrawn (its
 * ownership ends, which delivery checks before each attempt and while a retry waits), the record in flight may finish for up to
 * {@code revokeWait}, the finished prefix is committed, and the partition's matches stop getting heartbeats here.
 * On assignment the partition's recent, already committed records are read back with a separate consumer to adopt
 * its live matches, so their heartbeats move with the partition without any message being pushed again.
 */
public class KafkaPartitions {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPartitions.class);

    private final LiveMatches liveMatches;
    private final EnvelopeValidator validator;
    private final MatchIdResolver resolver;
    private final Map<TopicPartition, Ownership> owners = new ConcurrentHashMap<>();
    private final Set<Consumer<?, ?>> consumers = ConcurrentHashMap.newKeySet();
    private final List<Runnable> assignmentListeners = new CopyOnWriteArrayList<>();
    /** Made by {@link #start(CamelContext)} (when its component starts), shut down by {@link #stop()}. */
    private volatile ExecutorService lookBacks;
    private ExecutorServiceManager threads;
    private volatile String brokers;
    private volatile Duration lookBack = Duration.ofMinutes(30);
    private volatile int lookBackRecords = 10_000;
    private volatile Duration revokeWait = Duration.ofSeconds(10);

    public KafkaPartitions(LiveMatches liveMatches, EnvelopeValidator validator, MatchIdResolver resolver) {
        this.liveMatches = liveMatches;
        this.validator = validator;
        this.resolver = resolver;
    }

    public void setBrokers(String brokers) {
        this.brokers = brokers;
    }

    /** How far back a new owner reads a partition to find its live matches: the live period of a match. */
    public void setLookBack(Duration lookBack) {
        this.lookBack = lookBack;
    }

    /** At most this many records per partition are read back, whatever the time window. */
    public void setLookBackRecords(int lookBackRecords) {
        this.lookBackRecords = lookBackRecords;
    }

    /** How long a revoked partition waits for its records in flight before it commits what is finished and goes. */
    public void setRevokeWait(Duration revokeWait) {
        this.revokeWait = revokeWait;
    }

    /** The rebalance listener a consumer of the source subscribes with (KafkaSourceComponent): Camel's, then ours. */
    public ConsumerRebalanceListener listenerFor(Consumer<?, ?> consumer, ConsumerRebalanceListener camelListener) {
        consumers.add(consumer);
        return new Handover(consumer, camelListener);
    }

    /**
     * On the poll thread, before a record goes to ingest: commits what its consumer's partitions have finished, then
     * tracks the record until delivery is done with it.
     */
    public void receiving(Exchange exchange) {
        TopicPartition partition = new TopicPartition(exchange.getMessage().getHeader(KafkaConstants.TOPIC, String.class),
                exchange.getMessage().getHeader(KafkaConstants.PARTITION, Integer.class));
        long offset = exchange.getMessage().getHeader(KafkaConstants.OFFSET, Long.class);
        Ownership owner = owners.get(partition);
        if (owner == null) {
            throw new IllegalStateException("record of " + partition + " at offset " + offset + " but the partition is not assigned");
        }
        commitFinished(owner.consumer);
        byte[] body = exchange.getMessage().getBody(byte[].class);
        // known to the ownership before delivery has it, so a revocation forgets the match's heartbeats here even
        // when its first message is still on the way
        matchOf(body).ifPresent(owner.matches::add);
        owner.progress.handedOn(offset);
        owner.next = offset + 1;
        SourceHandover.attach(exchange, new SourceHandover() {
            @Override
            public boolean isWithdrawn() {
                return !owner.isOwned();
            }

            @Override
            public void acknowledge() {
                owner.progress.finished(offset);
            }

            @Override
            public void handBack(String why) {
                owner.progress.abandoned(offset);
                if (owner.isOwned()) {
                    LOG.warn("Record {} of {} was neither delivered nor dead-lettered ({}); its offset stays uncommitted, so"
                            + " the partition's next owner (or this instance after a restart) reads it again", offset, partition, why);
                }
            }
        });
    }

    /** Only ever on the poll thread of {@code consumer}. */
    private void commitFinished(Consumer<?, ?> consumer) {
        owners.forEach((partition, owner) -> {
            if (owner.consumer != consumer) {
                return;
            }
            OptionalLong offset = owner.progress.toCommit();
            if (offset.isPresent()) {
                long next = offset.getAsLong();
                consumer.commitAsync(Map.of(partition, new OffsetAndMetadata(next)), (offsets, e) -> {
                    if (e == null) {
                        owner.progress.committed(next);
                    } else if (causedBy(e, RebalanceInProgressException.class)) {
                        LOG.debug("Commit of {} up to {} deferred: a rebalance is in progress", partition, next);
                    } else {
                        LOG.warn("Commit of {} up to {} failed ({}); the next commit covers it", partition, next, e.getMessage());
                    }
                });
            }
        });
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
    Optional<String> matchOf(byte[] body) {
        try {
            UpstreamMessage message = validator.validateRaw(body);
            // UnresolvableMatchException is a RejectedMessageException too
            return message.isAlive() ? Optional.empty() : Optional.of(resolver.resolve(message.fightMetadata()));
        } catch (RejectedMessageException e) {
            return Optional.empty();
        }
    }

    public Set<TopicPartition> owned() {
        return Set.copyOf(owners.keySet());
    }

    /**
     * The offset of the partition's next record this instance hands on (its records before it are handed on, or were
     * before the partition came here); empty when the partition is not this instance's, -1 while not yet known.
     */
    public OptionalLong nextToHandOn(TopicPartition partition) {
        Ownership owner = owners.get(partition);
        return owner == null ? OptionalLong.empty() : OptionalLong.of(owner.next);
    }

    /** Runs on a poll thread after partitions are assigned here (they are {@link #owned()} by then): keep it short. */
    public void onAssigned(Runnable listener) {
        assignmentListeners.add(listener);
    }

    Set<Consumer<?, ?>> consumers() {
        return consumers;
    }

    /**
     * The look-back thread (of the context's ExecutorServiceManager) comes with the start of the source's component:
     * partitions of no route cost nothing.
     */
    public synchronized void start(CamelContext context) {
        if (lookBacks == null || lookBacks.isShutdown()) {
            threads = context.getExecutorServiceManager();
            lookBacks = threads.newSingleThreadExecutor(this, "kafka-look-back");
        }
    }

    public synchronized void stop() {
        if (lookBacks != null) {
            threads.shutdownNow(lookBacks);
        }
    }

    /**
     * Ends this consumer's ownership of the partitions (another consumer of this instance may already hold a newer
     * one: that one is left alone); delivery then withdraws their queued records.
     */
    private Map<TopicPartition, Ownership> end(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        Map<TopicPartition, Ownership> ending = new LinkedHashMap<>();
        for (TopicPartition partition : partitions) {
            Ownership owner = owners.get(partition);
            if (owner != null && owner.consumer == consumer && owners.remove(partition, owner)) {
                owner.owned = false;
                ending.put(partition, owner);
            }
        }
        return ending;
    }

    /** On the poll thread: let what is in flight finish for a while, then commit what is finished. */
    private void settle(Consumer<?, ?> consumer, Map<TopicPartition, Ownership> ending) {
        long until = System.currentTimeMillis() + revokeWait.toMillis();
        ending.forEach((partition, owner) -> {
            try {
                if (!owner.progress.awaitSettled(Math.max(0, until - System.currentTimeMillis()))) {
                    LOG.warn("Partition {} revoked with records still in delivery after {} ({}); they are not committed",
                            partition, revokeWait, owner.progress);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            OptionalLong offset = owner.progress.toCommit();
            if (offset.isPresent()) {
                try {
                    consumer.commitSync(Map.of(partition, new OffsetAndMetadata(offset.getAsLong())));
                    owner.progress.committed(offset.getAsLong());
                } catch (RuntimeException e) {
                    LOG.warn("Partition {} revoked but its finished records up to {} not committed ({}); its next owner"
                            + " pushes them again", partition, offset.getAsLong(), e.getMessage());
                }
            }
            LOG.info("Partition {} revoked: {}", partition, owner.progress);
        });
    }

    /** The partitions' matches get no more heartbeats from here: their new owner sends them. */
    private void forget(Map<TopicPartition, Ownership> ended, String why) {
        ended.forEach((partition, owner) -> {
            owner.matches.forEach(liveMatches::forget);
            LOG.info("Partition {} {}: {} live matches handed over", partition, why, owner.matches.size());
        });
    }

    private void takeOver(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, Ownership> taken = new LinkedHashMap<>();
        partitions.forEach(partition -> taken.put(partition, new Ownership(consumer)));
        owners.putAll(taken);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
        for (TopicPartition partition : partitions) {
            OffsetAndMetadata offset = committed.get(partition);
            LOG.info("Partition {} assigned, starting at committed offset {}", partition, offset == null ? "none" : offset.offset());
            try {
                taken.get(partition).next = consumer.position(partition);
            } catch (RuntimeException e) {
                LOG.debug("Partition {}: position not known yet ({}); its first record tells", partition, e.toString());
            }
            if (offset != null && offset.offset() > 0) {
                ExecutorService started = lookBacks;
                if (started == null) {
                    throw new IllegalStateException("the Kafka source's partitions are not started");
                }
                started.submit(() -> adoptLiveMatches(partition, offset.offset()));
            }
        }
        for (Runnable listener : assignmentListeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                // the assignment itself stands: a listener's failure is its own
                LOG.warn("Partitions {} assigned, but a listener failed: {}", partitions, e.toString());
            }
        }
    }

    private void adoptLiveMatches(TopicPartition partition, long committedOffset) {
        try {
            Map<String, Instant> adopted = new KafkaLookBack(brokers, lookBack, lookBackRecords)
                    .read(partition, committedOffset, body -> matchOf(body));
            Ownership owner = owners.get(partition);
            if (owner == null) {
                return;
            }
            adopted.forEach((match, lastHeard) -> {
                liveMatches.adopt(match, lastHeard);
                owner.matches.add(match);
            });
            LOG.info("Partition {}: adopted {} live matches from its records before offset {}", partition, adopted.size(),
                    committedOffset);
        } catch (RuntimeException e) {
            LOG.warn("Partition {}: could not read back its recent records ({}); its idle matches get heartbeats again"
                    + " with their next message", partition, e.toString());
        }
    }

    /** One assignment of a partition to one consumer of this instance; a later assignment is a new ownership. */
    private static final class Ownership {
        private final Consumer<?, ?> consumer;
        private final PartitionProgress progress = new PartitionProgress();
        private final Set<String> matches = ConcurrentHashMap.newKeySet();
        private volatile boolean owned = true;
        /** Written on the poll thread only. */
        private volatile long next = -1;

        Ownership(Consumer<?, ?> consumer) {
            this.consumer = consumer;
        }

        boolean isOwned() {
            return owned;
        }
    }

    /** Camel's listener first (it commits nothing here), then our hand-over, then the heartbeats follow the partitions. */
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
            Map<TopicPartition, Ownership> ended = end(consumer, partitions);
            settle(consumer, ended);
            forget(ended, "revoked");
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            camel.onPartitionsLost(partitions);
            // another member may own them already: nothing may be committed for them any more
            forget(end(consumer, partitions), "lost");
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            camel.onPartitionsAssigned(partitions);
            takeOver(consumer, partitions);
        }
    }
}
