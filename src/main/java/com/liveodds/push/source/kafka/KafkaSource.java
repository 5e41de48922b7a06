package com.liveodds.push.source.kafka;

import java.time.Duration;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.ingest.EnvelopeValidator;
import com.liveodds.push.ingest.MatchIdResolver;
import com.liveodds.push.settings.PartnerSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.spi.Registry;

/**
 * The Kafka source's beans, one set per partner (contract 16): each partner reads the upstream topic in a consumer
 * group of its own ({@code <liveodds.source.kafka.group>-N}, the route of template {@code liveodds-source-kafka}), so
 * each keeps its own committed offsets on the broker. Per partner, named with its suffix like the partner's delivery
 * beans: {@code liveoddsKafkaPartitions} (its partitions, commits, and the heartbeats of its matches that move with
 * them, in that partner's {@code liveoddsLiveMatches}), its component {@code liveoddsKafka} and its readiness monitor.
 * The single partner of {@code liveodds.partner.*} gets the names without suffix and its group as set.
 */
public class KafkaSource implements CamelContextAware {

    private CamelContext context;
    private EnvelopeValidator validator;
    private MatchIdResolver resolver;
    private String brokers;
    private Duration lookBack;
    private int lookBackRecords;
    private Duration revokeWait;

    public void setValidator(EnvelopeValidator validator) {
        this.validator = validator;
    }

    public void setResolver(MatchIdResolver resolver) {
        this.resolver = resolver;
    }

    public void setBrokers(String brokers) {
        this.brokers = brokers;
    }

    public void setLookBack(Duration lookBack) {
        this.lookBack = lookBack;
    }

    public void setLookBackRecords(int lookBackRecords) {
        this.lookBackRecords = lookBackRecords;
    }

    public void setRevokeWait(Duration revokeWait) {
        this.revokeWait = revokeWait;
    }

    /** Runs when liveoddsBeans binds it, after liveoddsPartners has bound each partner's live matches. */
    public void install() {
        PropertiesComponent properties = context.getPropertiesComponent();
        Registry registry = context.getRegistry();
        for (PartnerSettings partner : PartnerSettings.all(key -> properties.resolveProperty(key).orElse(null))) {
            String suffix = partner.suffix();
            LiveMatches liveMatches = registry.lookupByNameAndType("liveoddsLiveMatches" + suffix, LiveMatches.class);
            if (liveMatches == null) {
                throw new IllegalStateException("liveoddsLiveMatches" + suffix + " is not bound: liveoddsPartners comes first");
            }
            KafkaPartitions partitions = new KafkaPartitions(liveMatches, validator, resolver);
            partitions.setBrokers(brokers);
            partitions.setLookBack(lookBack);
            partitions.setLookBackRecords(lookBackRecords);
            partitions.setRevokeWait(revokeWait);
            registry.bind("liveoddsKafkaPartitions" + suffix, partitions);
            registry.bind("liveoddsKafka" + suffix, new KafkaSourceComponent(partitions));
            registry.bind("liveoddsKafkaSourceMonitor" + suffix, new KafkaSourceMonitor(partitions, "liveodds-source-kafka" + suffix));
        }
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }
}
