package com.liveodds.push.recovery.kafka;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import com.liveodds.push.recovery.Recoveries;
import com.liveodds.push.recovery.RecoveryRouting;
import com.liveodds.push.recovery.RetainedMessages;
import com.liveodds.push.source.kafka.KafkaPartitions;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.StartupListener;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several instances on Kafka (contract 20, scale-out): any instance accepts a partner's recovery, and the instance
 * that owns a match's partition, in that partner's consumer group, pushes it, through its own per-match delivery.
 * <p>
 * The instance that accepts a request cuts its matches into parts by the partition of the upstream topic they are on
 * (its store keeps the whole topic: {@link TopicRetainer}) and writes the request to the control topic
 * ({@code liveodds.source.kafka.control-topic}, one partition, made if missing) before it answers 202. Every
 * instance reads the control topic whole, outside any group: it learns every request (GET answers on any instance,
 * the limit counts them all) and runs the parts whose partition its consumer of that partner owns now, reporting
 * their progress on the same topic. A part not reported ended is open: an instance that is assigned the partition
 * later (a rebalance, the owner stopped or crashed) runs it again, so a part is pushed at least once, never dropped.
 * Before a part runs, the instance waits until its store holds every record its consumer has handed on of that
 * partition, so the recovery's current odds are at least as new as what went live. A starting instance reads back
 * {@link #LOOK_BACK} of the control topic, and acts only once it has read up to the end.
 */
public class ControlTopic extends ServiceSupport implements RecoveryRouting, CamelContextAware, StartupListener {

    /** The bean's name: camel-main makes the beans twice, the copy bound under it runs. */
    public static final String BEAN = "liveoddsRecoveryControl";
    /**
     * What a starting instance reads back of the control topic, and how long the topic it makes keeps records: the
     * limit's 10 minutes, and the parts an instance that stopped left unfinished; older open parts are given up.
     */
    static final Duration LOOK_BACK = Duration.ofHours(1);
    private static final Logger LOG = LoggerFactory.getLogger(ControlTopic.class);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(10);
    /** A running part's counts are reported at most this often. */
    private static final Duration REPORT_EVERY = Duration.ofSeconds(1);
    /** Between two tries of a Kafka client that failed. */
    private static final Duration PAUSE = Duration.ofSeconds(2);

    private final Recoveries recoveries;
    private final RetainedMessages store;
    private final TopicRetainer retainer;
    /** Partner id → the partitions its consumer group gives this instance. */
    private final Map<String, KafkaPartitions> partitions;
    /** Parts not reported ended, by key: the control thread's alone. */
    private final Map<String, OpenPart> open = new LinkedHashMap<>();
    /** Parts queued, running or ended here (until their end is read back). */
    private final Set<String> here = ConcurrentHashMap.newKeySet();
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private CamelContext context;
    private String brokers;
    private String controlTopic;
    private volatile boolean reading;
    private volatile boolean reassess;
    private volatile boolean caughtUp;
    private volatile KafkaProducer<String, byte[]> producer;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private ExecutorService threads;

    /** @param partitions partner id → that partner's partitions here */
    public ControlTopic(Recoveries recoveries, RetainedMessages store, Map<String, KafkaPartitions> partitions,
                        TopicRetainer retainer) {
        this.recoveries = recoveries;
        this.store = store;
        this.partitions = Map.copyOf(partitions);
        this.retainer = retainer;
    }

    public void setBrokers(String brokers) {
        this.brokers = brokers;
    }

    public void setControlTopic(String controlTopic) {
        this.controlTopic = controlTopic;
    }

    /** Runs when routes/beans.yaml loads: starts with the context. */
    public void install() throws Exception {
        if (context.isStarted()) {
            begin();
        } else {
            context.addStartupListener(this);
        }
    }

    private void begin() throws Exception {
        if (context.getRegistry().lookupByName(BEAN) == this) {
            context.addService(this, true, true);
        }
    }

    @Override
    public void onCamelContextStarting(CamelContext context, boolean alreadyStarted) throws Exception {
        begin();
    }

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
    }

    @Override
    protected void doStart() {
        reading = true;
        partitions.values().forEach(p -> p.onAssigned(this::assigned));
        producer = new KafkaProducer<>(producerProperties(), new StringSerializer(), new ByteArraySerializer());
        threads = context.getExecutorServiceManager().newFixedThreadPool(this, "LiveoddsRecoveryKafka", 2);
        threads.execute(() -> retainer.run(() -> reading, this::pause));
        threads.execute(this::readControl);
    }

    @Override
    protected void doStop() {
        reading = false;
        stopped.countDown();
        retainer.wakeup();
        wakeUp();
        if (threads != null) {
            // woken up, the readers close their consumers themselves: an interrupt would cut that close short
            context.getExecutorServiceManager().shutdownGraceful(threads, SEND_TIMEOUT.toMillis());
        }
        KafkaProducer<String, byte[]> p = producer;
        producer = null;
        if (p != null) {
            p.close(SEND_TIMEOUT);
        }
    }

    /**
     * Cuts the request into parts by partition and writes it to the control topic; the matches with nothing kept
     * from the topic make no part (they are counted, nothing is pushed).
     */
    @Override
    public Set<String> route(Request request) {
        KafkaProducer<String, byte[]> p = producer;
        if (p == null) {
            throw new IllegalStateException("the control topic is not open");
        }
        Map<Integer, List<String>> parts = new TreeMap<>();
        try {
            for (String match : request.matches()) {
                store.partitionOf(match).ifPresent(partition -> parts.computeIfAbsent(partition, k -> new ArrayList<>()).add(match));
            }
            p.send(new ProducerRecord<>(controlTopic, request.requestId(), ControlRecords.request(request, parts)))
                    .get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (SQLException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("not written to " + controlTopic + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        return parts.keySet().stream().map(String::valueOf).collect(Collectors.toSet());
    }

    /** On a partner's poll thread: partitions came here, so open parts may be this instance's now. */
    private void assigned() {
        reassess = true;
        wakeUp();
    }

    /** Ends the control consumer's wait at once (it may just be closing: then it has nothing to wake from). */
    private void wakeUp() {
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            try {
                c.wakeup();
            } catch (RuntimeException closed) {
                LOG.debug("Recovery: control consumer not woken up ({})", closed.toString());
            }
        }
    }

    private void readControl() {
        Map<TopicPartition, Long> resume = new HashMap<>();
        while (reading) {
            try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumerProperties(), new StringDeserializer(),
                    new ByteArrayDeserializer())) {
                consumer = c;
                read(c, resume);
            } catch (InterruptException e) {
                return;
            } catch (WakeupException e) {
                // an assignment while the topic was being opened: open it again, looking at the parts once it is read
            } catch (RuntimeException e) {
                if (reading) {
                    LOG.warn("Recovery: reading control topic {} failed ({}); trying again", controlTopic, e.toString());
                    pause();
                }
            }
        }
    }

    /** Reads the control topic from {@code resume} (empty: from {@link #LOOK_BACK} ago), keeping it up to date. */
    private void read(KafkaConsumer<String, byte[]> c, Map<TopicPartition, Long> resume) {
        List<TopicPartition> all = controlPartitions(c);
        c.assign(all);
        Map<TopicPartition, Long> end = c.endOffsets(all);
        if (resume.isEmpty()) {
            Map<TopicPartition, Long> since = new HashMap<>();
            all.forEach(p -> since.put(p, Instant.now().minus(LOOK_BACK).toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> byTime = c.offsetsForTimes(since);
            all.forEach(p -> resume.put(p, Optional.ofNullable(byTime.get(p)).map(OffsetAndTimestamp::offset).orElse(end.get(p))));
        }
        resume.forEach(c::seek);
        Instant nextReport = Instant.now();
        while (reading) {
            try {
                for (ConsumerRecord<String, byte[]> record : c.poll(POLL)) {
                    handle(record);
                }
                for (TopicPartition p : all) {
                    resume.put(p, c.position(p));
                }
                if (!caughtUp && end.entrySet().stream().allMatch(e -> resume.get(e.getKey()) >= e.getValue())) {
                    caughtUp = true;
                    reassess = true;
                    LOG.info("Recovery: control topic {} read, {} parts open", controlTopic, open.size());
                }
            } catch (WakeupException e) {
                // an assignment (below) or the stop
            }
            if (caughtUp && reassess) {
                reassess = false;
                List.copyOf(open.values()).forEach(this::consider);
            }
            if (Instant.now().isAfter(nextReport)) {
                nextReport = Instant.now().plus(REPORT_EVERY);
                running.values().forEach(Running::report);
                Instant givenUp = Instant.now().minus(LOOK_BACK);
                open.values().removeIf(part -> part.request().askedAt().isBefore(givenUp));
            }
        }
    }

    /** The control topic's partitions, the topic made if missing. */
    private List<TopicPartition> controlPartitions(KafkaConsumer<String, byte[]> c) {
        List<PartitionInfo> infos = c.partitionsFor(controlTopic);
        if (infos == null || infos.isEmpty()) {
            create();
            infos = c.partitionsFor(controlTopic);
        }
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("control topic " + controlTopic + " has no partitions");
        }
        return infos.stream().map(info -> new TopicPartition(controlTopic, info.partition())).toList();
    }

    /** One partition (every instance reads it whole, in one order), records kept for the look-back. */
    private void create() {
        Map<String, String> configs = Map.of(TopicConfig.RETENTION_MS_CONFIG, Long.toString(LOOK_BACK.toMillis()),
                TopicConfig.SEGMENT_MS_CONFIG, Long.toString(LOOK_BACK.toMillis()));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers))) {
            admin.createTopics(List.of(new NewTopic(controlTopic, Optional.of(1), Optional.empty()).configs(configs)))
                    .all().get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("Recovery: control topic {} made", controlTopic);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot make control topic " + controlTopic + ": " + e.getCause(), e);
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot make control topic " + controlTopic + ": no answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    /** One control record: anything that is not one of ours is logged (never quoted) and passed over. */
    private void handle(ConsumerRecord<String, byte[]> record) {
        try {
            ControlRecords.Parsed parsed = ControlRecords.parse(record.value());
            if (parsed instanceof ControlRecords.Request request) {
                requested(request);
            } else if (parsed instanceof ControlRecords.Progress progress) {
                reported(progress);
            }
        } catch (IllegalArgumentException e) {
            LOG.warn("Recovery: control record {} of {}-{} passed over: {}", record.offset(), record.topic(),
                    record.partition(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("Recovery: control record {} of {}-{} passed over ({})", record.offset(), record.topic(),
                    record.partition(), e.toString());
        }
    }

    private void requested(ControlRecords.Request record) {
        Request request = record.request();
        if (!partitions.containsKey(request.partnerId())) {
            throw new IllegalArgumentException("a partner id this instance does not serve");
        }
        recoveries.remember(request, record.parts().keySet().stream().map(String::valueOf).collect(Collectors.toSet()));
        record.parts().forEach((partition, matches) -> {
            OpenPart part = new OpenPart(request, partition, matches);
            if (open.putIfAbsent(part.key(), part) == null && caughtUp) {
                consider(part);
            }
        });
    }

    private void reported(ControlRecords.Progress record) {
        recoveries.progress(record.partnerId(), record.requestId(), String.valueOf(record.part()), record.progress());
        if (record.progress().isEnded()) {
            String key = OpenPart.key(record.partnerId(), record.requestId(), record.part());
            open.remove(key);
            // a part ended here stays here until its end is read back, so that it is not taken as open meanwhile
            here.remove(key);
        }
    }

    /** Runs the part here if this instance owns its partition for its partner and is not running it already. */
    private void consider(OpenPart part) {
        if (next(part).isPresent() && here.add(part.key())) {
            recoveries.runPart(new LocalPart(part));
        }
    }

    /** Where the partner's consumer here goes on in the part's partition; empty when the partition is not here. */
    private OptionalLong next(OpenPart part) {
        KafkaPartitions owned = partitions.get(part.request().partnerId());
        return owned == null ? OptionalLong.empty()
                : owned.nextToHandOn(new TopicPartition(retainer.topic(), part.partition()));
    }

    private void publish(OpenPart part, Progress progress) {
        KafkaProducer<String, byte[]> p = producer;
        if (p == null) {
            return;
        }
        try {
            p.send(new ProducerRecord<>(controlTopic, part.request().requestId(), ControlRecords.progress(
                    part.request().partnerId(), part.request().requestId(), part.partition(), progress)), (sent, e) -> {
                if (e != null) {
                    LOG.warn("Recovery {}: progress of part {} not written ({})", part.request().requestId(), part.partition(),
                            e.toString());
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("Recovery {}: progress of part {} not written ({})", part.request().requestId(), part.partition(),
                    e.toString());
        }
    }

    private void pause() {
        try {
            stopped.await(PAUSE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Properties producerProperties() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "liveodds-recovery-control");
        // a request is answered 503 rather than wait long for a cluster that is gone
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(SEND_TIMEOUT.toMillis()));
        return props;
    }

    private Properties consumerProperties() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "liveodds-recovery-control");
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(ControlRecords.MAX_BYTES));
        return props;
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /** A part of a request: the request's matches on one partition. */
    private record OpenPart(Request request, int partition, List<String> matches) {

        static String key(String partnerId, String requestId, int partition) {
            return partnerId + " " + requestId + " " + partition;
        }

        String key() {
            return key(request.partnerId(), request.requestId(), partition);
        }
    }

    /** A part run here: its progress, reported when it moved, and once more when it ends (never after that). */
    private final class Running {
        private final OpenPart part;
        private final Supplier<Progress> progress;
        private Progress last;
        private boolean ended;

        Running(OpenPart part, Supplier<Progress> progress) {
            this.part = part;
            this.progress = progress;
        }

        synchronized void report() {
            Progress now = progress.get();
            if (!ended && !now.equals(last)) {
                last = now;
                publish(part, now);
            }
        }

        synchronized void end(Progress progress) {
            ended = true;
            publish(part, progress);
        }
    }

    /** What {@link Recoveries#runPart} asks of a part run here. */
    private final class LocalPart implements Part {
        private final OpenPart part;

        LocalPart(OpenPart part) {
            this.part = part;
        }

        @Override
        public Request request() {
            return part.request();
        }

        @Override
        public List<String> matches() {
            return part.matches();
        }

        /**
         * Still this instance's? Then once the store holds the partition up to where this instance's consumer had got
         * when the part started, everything kept so far.
         */
        @Override
        public OptionalLong upTo() throws Exception {
            long target = -1;
            while (reading) {
                OptionalLong next = next(part);
                if (next.isEmpty()) {
                    return OptionalLong.empty();
                }
                if (target < 0) {
                    target = next.getAsLong();
                }
                // -1: the consumer's position is not known yet (its first record tells)
                if (retainer.awaitKept(part.partition(), target < 0 ? Long.MAX_VALUE : target, POLL.toMillis())) {
                    return OptionalLong.of(store.newest());
                }
            }
            return OptionalLong.empty();
        }

        @Override
        public boolean isHere() {
            return next(part).isPresent();
        }

        @Override
        public void started(Supplier<Progress> progress) {
            Running run = new Running(part, progress);
            running.put(part.key(), run);
            run.report();
        }

        @Override
        public void ended(Progress progress) {
            Running run = running.remove(part.key());
            if (run != null) {
                run.end(progress);
            } else {
                publish(part, progress);
            }
        }

        @Override
        public void dropped() {
            // no report of it from here: it stays open for the instance that owns its partition now
            running.remove(part.key());
            here.remove(part.key());
        }
    }
}
