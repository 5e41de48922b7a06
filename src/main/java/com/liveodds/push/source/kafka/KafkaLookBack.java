package com.liveodds.push.source.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the recent records of one partition up to its committed offset, with a consumer of its own (assigned, not
 * in the group, committing nothing), and returns the matches they belong to with the time of each one's newest record.
 * Bounded by time and by record count.
 */
final class KafkaLookBack {

    private static final Duration POLL = Duration.ofMillis(500);
    // a look-back that cannot finish (cluster gone) must not hold up the next partition's
    private static final Duration GIVE_UP_AFTER = Duration.ofSeconds(30);
    private final String brokers;
    private final Duration window;
    private final int maxRecords;

    KafkaLookBack(String brokers, Duration window, int maxRecords) {
        this.brokers = brokers;
        this.window = window;
        this.maxRecords = maxRecords;
    }

    Map<String, Instant> read(TopicPartition partition, long endOffset, Function<byte[], Optional<String>> matchOf) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "liveodds-look-back-" + partition);
        Map<String, Instant> matches = new LinkedHashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(partition));
            long earliest = consumer.beginningOffsets(List.of(partition)).get(partition);
            long start = Math.max(earliest, endOffset - maxRecords);
            OffsetAndTimestamp byTime = consumer.offsetsForTimes(Map.of(partition, Instant.now().minus(window).toEpochMilli()))
                    .get(partition);
            if (byTime == null) {
                return matches;
            }
            start = Math.max(start, byTime.offset());
            consumer.seek(partition, start);
            Instant giveUp = Instant.now().plus(GIVE_UP_AFTER);
            while (consumer.position(partition) < endOffset) {
                if (Instant.now().isAfter(giveUp)) {
                    throw new IllegalStateException("look-back of " + partition + " did not reach offset " + endOffset);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL).records(partition)) {
                    if (record.offset() < endOffset && record.value() != null) {
                        Instant at = Instant.ofEpochMilli(record.timestamp());
                        matchOf.apply(record.value()).ifPresent(match -> matches.merge(match, at, (a, b) -> a.isAfter(b) ? a : b));
                    }
                }
            }
        }
        return matches;
    }
}
