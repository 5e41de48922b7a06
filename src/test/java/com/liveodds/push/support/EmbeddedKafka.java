package com.liveodds.push.support;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.camel.util.FileUtil;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/** A single-node KRaft Kafka (broker and controller in one) in this JVM on 127.0.0.1, and the odds engine as producer. */
public final class EmbeddedKafka implements AutoCloseable {

    private final int brokerPort = RunningService.freePort();
    private final int controllerPort = RunningService.freePort();
    private Path logDir;
    private KafkaRaftServer server;
    private KafkaProducer<String, String> producer;

    public EmbeddedKafka start() throws Exception {
        logDir = Files.createTempDirectory("kraft");
        Map<String, Object> props = new HashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", logDir.toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        // a test group should not wait 3 s for more members before its first assignment
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("group.min.session.timeout.ms", "1000");
        props.put("auto.create.topics.enable", "false");
        KafkaConfig config = new KafkaConfig(props, false);

        new Formatter().setPrintStream(System.out).setNodeId(1).setClusterId(Uuid.randomUuid().toString())
                .setDirectories(List.of(logDir.toString())).setMetadataLogDirectory(logDir.toString())
                .setControllerListenerName("CONTROLLER").setReleaseVersion(MetadataVersion.latestProduction())
                .run();
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        return this;
    }

    public String bootstrap() {
        return "127.0.0.1:" + brokerPort;
    }

    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
            admin.createTopics(Set.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** What the group has not committed yet on the topic's partitions: end offsets minus committed offsets. */
    public long lag(String group, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            long lag = 0;
            for (var end : admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).entrySet()) {
                OffsetAndMetadata at = committed.get(end.getKey());
                lag += end.getValue().offset() - (at == null ? 0 : at.offset());
            }
            return lag;
        }
    }

    /** Sends as the odds engine does: keyed by fight id (null key for a record meant for one partition). */
    public void send(String topic, String key, String body) throws Exception {
        producer().send(new ProducerRecord<>(topic, key, body)).get(10, TimeUnit.SECONDS);
    }

    /** The same with record headers (UTF-8), a W3C {@code traceparent} say. */
    public void send(String topic, String key, String body, Map<String, String> headers) throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, body);
        headers.forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        producer().send(record).get(10, TimeUnit.SECONDS);
    }

    /** A record whose value is these bytes exactly (a producer that does not write UTF-8). */
    public void sendBytes(String topic, String key, byte[] value) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, byte[]> bytes = new KafkaProducer<>(props, new StringSerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            bytes.send(new ProducerRecord<>(topic, key, value)).get(10, TimeUnit.SECONDS);
        }
    }

    /** An {@code alive} to every partition, as the contract asks of producers. */
    public void sendToEveryPartition(String topic, String body) throws Exception {
        int partitions = producer().partitionsFor(topic).size();
        for (int p = 0; p < partitions; p++) {
            producer().send(new ProducerRecord<>(topic, p, null, body)).get(10, TimeUnit.SECONDS);
        }
    }

    private synchronized KafkaProducer<String, String> producer() {
        if (producer == null) {
            Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            producer = new KafkaProducer<>(props);
        }
        return producer;
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close();
        }
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
        }
        if (logDir != null) {
            FileUtil.removeDir(logDir.toFile());
        }
    }
}
