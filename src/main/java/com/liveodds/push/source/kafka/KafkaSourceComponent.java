package com.liveodds.push.source.kafka;

import java.util.Collection;
import java.util.Properties;
import java.util.regex.Pattern;

import org.apache.camel.component.kafka.DefaultKafkaClientFactory;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.spi.annotations.Component;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The Kafka source's own component instance (bean {@code liveoddsKafka}, endpoints {@code liveoddsKafka:topic}): its
 * consumers hand their rebalances to {@link KafkaPartitions}. The host application's {@code kafka} component, its
 * settings and its consumers stay untouched, and the client factory is no bean another component could be given.
 * Named kafka for Camel (the annotation) so that it takes the kafka endpoint options. One per partner
 * (liveoddsKafka[-N], made by LiveoddsBeans); it starts and stops its partitions' look-back with itself, so a partner or source that is not
 * in use holds no thread.
 */
@Component("kafka")
public class KafkaSourceComponent extends KafkaComponent {

    private final KafkaPartitions partitions;

    public KafkaSourceComponent(KafkaPartitions partitions) {
        this.partitions = partitions;
        setKafkaClientFactory(new DefaultKafkaClientFactory() {
            @Override
            public Consumer getConsumer(Properties kafkaProps) {
                return new KafkaConsumer<Object, Object>(kafkaProps) {
                    @Override
                    public void subscribe(Collection<String> topics, ConsumerRebalanceListener camelListener) {
                        super.subscribe(topics, partitions.listenerFor(this, camelListener));
                    }

                    @Override
                    public void subscribe(Pattern pattern, ConsumerRebalanceListener camelListener) {
                        super.subscribe(pattern, partitions.listenerFor(this, camelListener));
                    }
                };
            }
        });
    }

    @Override
    protected void doStart() throws Exception {
        partitions.start(getCamelContext());
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        super.doStop();
        partitions.stop();
    }
}
