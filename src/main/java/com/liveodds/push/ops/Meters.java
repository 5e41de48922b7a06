package com.liveodds.push.ops;

import java.util.Map;
import java.util.WeakHashMap;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.component.micrometer.MicrometerUtils;

/**
 * The meter registry the bundle's metrics go to, as one bean ({@code liveoddsMeters}, made by LiveoddsBeans) handed to
 * every bean that counts or times something. Unless it is given a registry ({@code registry}), it takes the one
 * camel-micrometer uses ({@code metricsRegistry}, served on {@code /observe/metrics}), so the bundle's own meters and
 * Camel's land together; a host application without metrics gets a registry of the bundle's own (the status
 * endpoint still reads its totals there). That choice is made once, on first use: the metrics registry exists once
 * the CamelContext has started its services, after the beans were made.
 */
public final class Meters implements CamelContextAware {

    /** The Meters of a CamelContext whose beans were given none (a bean in plain Java or a test's own context). */
    private static final Map<CamelContext, Meters> OF_CONTEXT = new WeakHashMap<>();

    private CamelContext camelContext;
    private volatile MeterRegistry registry;
    /** The Meters this one is a partner's view of, or null. */
    private Meters parent;
    private Tags tags = Tags.empty();

    /**
     * The same registry, with the label {@code partner} on every meter made through {@link #tags()} (contract 16); the
     * single partner of {@code liveodds.partner.*} has no label (empty name): its metrics stay as they were.
     */
    public Meters forPartner(String name) {
        if (name == null || name.isEmpty()) {
            return this;
        }
        Meters partner = new Meters();
        partner.parent = this;
        partner.camelContext = camelContext;
        partner.tags = tags.and("partner", name);
        return partner;
    }

    /** The labels every meter of this view carries ({@code partner}, or none). */
    public Tags tags() {
        return tags;
    }

    /** The registry to use instead of camel-micrometer's (a host's own MeterRegistry bean). */
    public void setRegistry(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The registry: the one given, else camel-micrometer's, else one of the bundle's own; the same one every time. */
    public MeterRegistry registry() {
        if (parent != null) {
            return parent.registry();
        }
        MeterRegistry r = registry;
        if (r == null) {
            synchronized (this) {
                r = registry;
                if (r == null) {
                    r = camelContext == null ? null
                            : MicrometerUtils.getMeterRegistryFromCamelRegistry(camelContext.getRegistry(), "metricsRegistry");
                    registry = r = r != null ? r : new SimpleMeterRegistry();
                }
            }
        }
        return r;
    }

    /**
     * For a bean that was handed no Meters: the Meters bean of its CamelContext, else one shared by the context's
     * beans, else (no context: plain Java) one of its own.
     */
    public static Meters of(CamelContext context) {
        if (context == null) {
            return new Meters();
        }
        Meters bean = context.getRegistry().findSingleByType(Meters.class);
        if (bean != null) {
            return bean;
        }
        synchronized (OF_CONTEXT) {
            return OF_CONTEXT.computeIfAbsent(context, c -> {
                Meters shared = new Meters();
                shared.setCamelContext(c);
                return shared;
            });
        }
    }

    /** The Meters a bean was handed, or (none handed) {@link #of(CamelContext) the one of its CamelContext}. */
    public static Meters orOf(Meters given, CamelContext context) {
        return given != null ? given : of(context);
    }

    /** The registry the bundle's meters of this CamelContext go to. */
    public static MeterRegistry registry(CamelContext context) {
        return of(context).registry();
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
