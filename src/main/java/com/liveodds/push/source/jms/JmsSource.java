package com.liveodds.push.source.jms;

import com.liveodds.push.settings.PartnerSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.spi.PropertiesComponent;

/**
 * The JMS source's beans per partner (contract 16): each partner's route (template {@code liveodds-source-jms}) has
 * its readiness monitor {@code liveoddsJmsSourceMonitor[-N]}. The connection factory, the component
 * {@code liveoddsJms} and the acknowledgement are shared: what is per partner is the consumer, its queue on the broker
 * and its acknowledgements.
 */
public class JmsSource implements CamelContextAware {

    private CamelContext context;

    /** Runs when beans.yaml loads. */
    public void install() {
        PropertiesComponent properties = context.getPropertiesComponent();
        for (PartnerSettings partner : PartnerSettings.all(key -> properties.resolveProperty(key).orElse(null))) {
            context.getRegistry().bind("liveoddsJmsSourceMonitor" + partner.suffix(),
                    new JmsSourceMonitor("liveodds-source-jms" + partner.suffix()));
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
