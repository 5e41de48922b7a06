package com.liveodds.push.status;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.delivery.PartnerBeans;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.token.PartnerTokenProvider;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.apache.camel.CamelContext;

/**
 * The gauges an operator alerts on that no delivery step records, read at scrape time from the beans that know
 * (found by type, so their names may change): {@code liveodds_token_expires_in_seconds} (NaN while there is no
 * token), {@code liveodds_dead_letters} and {@code liveodds_dead_letters_limit} (each partner's), and {@code liveodds_upstream_up} / {@code liveodds_partner_up} (1 or 0, the
 * readiness checks {@code upstream} and {@code partner} as numbers; NaN while no partner connection reports). The
 * token and partner gauges are each partner's, labelled {@code partner} for a partner of {@code liveodds.partners}.
 * Nothing here runs per message.
 */
public class OpsMeters {

    private volatile Meters meters;

    /** The meter registry of the bundle (beans.yaml: {@code #bean:liveoddsMeters}). */
    public void setMeters(Meters meters) {
        this.meters = meters;
    }

    /** Registers the gauges; call once the context has started its services (the metrics registry exists then). */
    public void register(CamelContext context) {
        Meters bundle = Meters.orOf(meters, context);
        MeterRegistry registry = bundle.registry();
        for (String partner : Partners.names(context)) {
            Tags tags = bundle.forPartner(partner).tags();
            Partners.beans(context, partner).map(PartnerBeans::tokens).ifPresent(tokens ->
                    gauge(registry, "liveodds.token.expires_in", "seconds", "Life left of the partner access token (NaN: no token)",
                            tags, tokens, OpsMeters::secondsLeft));
            // the partner's health is looked up at scrape time, as it was before partners came in a list
            gauge(registry, "liveodds.partner.up", null, "1 while the partner answers, 0 while it is down (readiness check partner)",
                    tags, context, c -> Partners.beans(c, partner)
                            .map(p -> p.health().partner().up() ? 1.0 : 0.0).orElse(Double.NaN));
        }
        find(context, DeadLetterStore.class).ifPresent(store -> deadLetters(registry, bundle, Partners.names(context), store));
        find(context, UpstreamLiveness.class).ifPresent(upstream -> gauge(registry, "liveodds.upstream.up", null,
                "1 while upstream speaks (readiness check upstream), 0 while it is silent", Tags.empty(), upstream,
                u -> u.isSpeaking() ? 1 : 0));
    }

    /**
     * Each partner's dead letters and their bound ({@code liveodds.dead-letter.max-per-partner}), labelled as the
     * partner's other meters; with several partners the rejected messages' letters, which are no partner's, carry
     * {@code partner=""} (to Prometheus: no label), so the series still add up to the whole store.
     */
    private static void deadLetters(MeterRegistry registry, Meters bundle, List<String> partners, DeadLetterStore store) {
        for (String partner : partners) {
            Tags tags = bundle.forPartner(partner).tags();
            gauge(registry, "liveodds.dead_letters", null, "Records in the dead-letter store, by the partner they record",
                    tags, store, s -> s.count(partner));
            gauge(registry, "liveodds.dead_letters.limit", null, "Dead letters a partner may have"
                    + " (liveodds.dead-letter.max-per-partner)", tags, store, s -> s.budget().limit());
        }
        if (Partners.isList(partners)) {
            gauge(registry, "liveodds.dead_letters", null, "Records in the dead-letter store, by the partner they record",
                    Tags.of("partner", ""), store, s -> s.count(""));
        }
    }

    static double secondsLeft(PartnerTokenProvider tokens) {
        Duration left = tokens.lifeLeft();
        return left == null ? Double.NaN : left.toMillis() / 1000.0;
    }

    private static <T> void gauge(MeterRegistry registry, String name, String unit, String help, Tags tags, T source,
                                  ToDoubleFunction<T> value) {
        Gauge.builder(name, source, value).baseUnit(unit).description(help).tags(tags).strongReference(true).register(registry);
    }

    private static <T> Optional<T> find(CamelContext context, Class<T> type) {
        return context.getRegistry().findByType(type).stream().findFirst();
    }
}
