package com.liveodds.push.recovery.kafka;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

import com.liveodds.push.delivery.Push;
import com.liveodds.push.ingest.EnvelopeValidator;
import com.liveodds.push.ingest.PushAssembler;
import com.liveodds.push.ingest.RejectedMessageException;
import com.liveodds.push.ingest.UpstreamMessage;
import com.liveodds.push.recovery.RetainedMessages;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every record of the upstream topic in this instance's {@link RetainedMessages}, whichever instance delivers
 * it: a consumer of its own, outside the consumer groups, assigned every partition. So the instance that owns a
 * match's partition has the match's whole history for recovery, also what an earlier owner delivered, and any instance
 * can count and list what a request covers. Each record is validated and resolved as ingest does (what ingest rejects
 * or an {@code alive} is not kept, its offset is passed); a poll's records are kept in one transaction together with
 * the offsets to go on from, which is where a restart resumes. A store without a position starts a partition at the
 * retention's start (its offset by time), or after the newest message it holds when ingest filled it before.
 */
public final class TopicRetainer {

    private static final Logger LOG = LoggerFactory.getLogger(TopicRetainer.class);
    private static final Duration POLL = Duration.ofMillis(500);
    /** How often partitions added to the topic are looked for. */
    private static final Duration NEW_PARTITIONS = Duration.ofMinutes(1);

    private final String brokers;
    private final String topic;
    private final RetainedMessages store;
    private final EnvelopeValidator validator;
    private final PushAssembler assembler;
    /** Partition → the offset everything before which is kept (the next one to read). */
    private final Map<Integer, Long> kept = new ConcurrentHashMap<>();
    private final Object moved = new Object();
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    public TopicRetainer(String brokers, String topic, RetainedMessages store, EnvelopeValidator validator, PushAssembler assembler) {
        this.brokers = brokers;
        this.topic = topic;
        this.store = store;
        this.validator = validator;
        this.assembler = assembler;
    }

    String topic() {
        return topic;
    }

    /** Reads the topic into the store while {@code running} says so; a failure starts again from what is kept. */
    void run(BooleanSupplier running, Runnable pause) {
        while (running.getAsBoolean()) {
            try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(properties())) {
                consumer = c;
                read(c, running);
            } catch (WakeupException | InterruptException e) {
                return;
            } catch (SQLException | RuntimeException e) {
                if (running.getAsBoolean()) {
                    LOG.warn("Recovery: reading topic {} into the store failed ({}); reading again from what is kept", topic,
                            e.toString());
                    pause.run();
                }
            } finally {
                kept.clear();
            }
        }
    }

    /** Ends a read in progress at once. */
    void wakeup() {
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    /**
     * Waits until every record of the partition before {@code offset} is kept, at most {@code millis}; true if it is.
     */
    boolean awaitKept(int partition, long offset, long millis) throws InterruptedException {
        long until = System.currentTimeMillis() + millis;
        synchronized (moved) {
            long left;
            while (kept.getOrDefault(partition, -1L) < offset) {
                left = until - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                moved.wait(left);
            }
            return true;
        }
    }

    private void read(KafkaConsumer<byte[], byte[]> c, BooleanSupplier running) throws SQLException {
        Instant look = Instant.MIN;
        while (running.getAsBoolean()) {
            if (Instant.now().isAfter(look)) {
                assignNew(c);
                look = Instant.now().plus(NEW_PARTITIONS);
            }
            ConsumerRecords<byte[], byte[]> records = c.poll(POLL);
            List<RetainedMessages.TopicRecord> batch = new ArrayList<>();
            Map<Integer, Long> next = new HashMap<>();
            Instant now = Instant.now();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                next.put(record.partition(), record.offset() + 1);
                push(record).ifPresent(push -> batch.add(new RetainedMessages.TopicRecord(push, record.partition(), at(record, now))));
            }
            if (!next.isEmpty()) {
                store.keepFromTopic(topic, batch, next);
            }
            // everything before a partition's position is kept now (records passed over included)
            for (TopicPartition partition : c.assignment()) {
                kept.put(partition.partition(), c.position(partition));
            }
            synchronized (moved) {
                moved.notifyAll();
            }
        }
    }

    /** Takes on the topic's partitions not read yet, each from its kept position, or the retention's start. */
    private void assignNew(KafkaConsumer<byte[], byte[]> c) throws SQLException {
        List<PartitionInfo> infos = c.partitionsFor(topic);
        Set<TopicPartition> all = new HashSet<>();
        if (infos != null) {
            infos.forEach(info -> all.add(new TopicPartition(topic, info.partition())));
        }
        Set<TopicPartition> added = new HashSet<>(all);
        added.removeAll(c.assignment());
        if (added.isEmpty()) {
            return;
        }
        c.assign(all);
        Map<Integer, Long> positions = store.topicPositions(topic);
        Instant from = Instant.now().minus(store.retention());
        Instant newest = positions.isEmpty() ? store.newestAcceptedAt() : null;
        if (newest != null && newest.isAfter(from)) {
            // a store ingest filled (before a control topic was set): what it holds is not read again, or an odds
            // message a snapshot has dropped would come back after that snapshot
            from = newest;
        }
        Map<TopicPartition, Long> beginning = c.beginningOffsets(added);
        Map<TopicPartition, Long> ends = c.endOffsets(added);
        Map<TopicPartition, Long> since = new HashMap<>();
        long fromMillis = from.toEpochMilli();
        added.forEach(p -> since.put(p, fromMillis));
        Map<TopicPartition, OffsetAndTimestamp> byTime = c.offsetsForTimes(since);
        for (TopicPartition partition : added) {
            Long position = positions.get(partition.partition());
            OffsetAndTimestamp first = byTime.get(partition);
            long start = position != null ? Math.max(position, beginning.get(partition))
                    : first != null ? first.offset() : ends.get(partition);
            c.seek(partition, start);
            kept.put(partition.partition(), start);
            LOG.info("Recovery: keeping the records of {} from offset {}", partition, start);
        }
    }

    /** The time of acceptance: the record's time in the topic, the same on every instance (never later than now). */
    private static Instant at(ConsumerRecord<byte[], byte[]> record, Instant now) {
        return record.timestamp() < 0 || record.timestamp() > now.toEpochMilli() ? now : Instant.ofEpochMilli(record.timestamp());
    }

    /** The push a record makes, as ingest would make it; empty for what ingest rejects or an {@code alive}. */
    private Optional<Push> push(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return Optional.empty();
        }
        try {
            UpstreamMessage message = validator.validateRaw(record.value());
            return message.isAlive() ? Optional.empty() : Optional.of(assembler.assemble(message));
        } catch (RejectedMessageException e) {
            // the partners' sources dead-letter it
            return Optional.empty();
        } catch (RuntimeException e) {
            LOG.warn("Recovery: record {} of {}-{} not kept ({})", record.offset(), topic, record.partition(), e.toString());
            return Optional.empty();
        }
    }

    private Properties properties() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // a kept position the topic has since deleted: from the partition's start
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "liveodds-recovery-retainer");
        // bounded in the heap whatever the partitions: Kafka's defaults fetch up to 50 MB at once
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(1024 * 1024));
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(256 * 1024));
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        return props;
    }
}
