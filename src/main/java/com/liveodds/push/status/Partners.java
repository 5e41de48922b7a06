package com.liveodds.push.status;

import java.util.List;
import java.util.Optional;

import com.liveodds.push.delivery.PartnerBeans;
import com.liveodds.push.delivery.PartnerDirectory;
import com.liveodds.push.settings.PartnerSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.PropertiesComponent;

/**
 * The partners as operations read them: their names from {@code liveodds.partners} ("" alone for the single partner of
 * {@code liveodds.partner.*}), and each partner's beans, as LiveoddsPartners made them (liveoddsPartnerDirectory).
 */
final class Partners {

    private Partners() {
    }

    /** The partner names; {@code [""]} for the single partner. */
    static List<String> names(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        List<String> names = PartnerSettings.names(key -> properties.resolveProperty(key).orElse(null));
        return names.isEmpty() ? List.of("") : names;
    }

    /** Whether the partners are those of {@code liveodds.partners}, not the single one. */
    static boolean isList(List<String> names) {
        return !(names.size() == 1 && names.get(0).isEmpty());
    }

    /** The partner's beans, as liveoddsPartners made them, if it did. */
    static Optional<PartnerBeans> beans(CamelContext context, String partner) {
        PartnerDirectory partners = context.getRegistry().lookupByNameAndType("liveoddsPartnerDirectory", PartnerDirectory.class);
        return partners == null ? Optional.empty() : partners.of(partner);
    }

    /** A setting of the partner ({@code id} → {@code liveodds.partners.a.id}), or null. */
    static String setting(CamelContext context, String partner, String key) {
        return context.getPropertiesComponent().resolveProperty(PartnerSettings.LIST + "." + partner + "." + key).orElse(null);
    }
}
