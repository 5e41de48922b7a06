package com.liveodds.push;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Predicate;
import org.apache.camel.Route;
import org.apache.camel.StartupListener;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.model.Model;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.spi.PropertiesComponent;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.liveodds.push.delivery.DeliveryGauges;
import com.liveodds.push.delivery.DeliveryHealthCheck;
import com.liveodds.push.delivery.Heartbeats;
import com.liveodds.push.delivery.PartnerBeans;
import com.liveodds.push.delivery.PartnerDeliveries;
import com.liveodds.push.delivery.PartnerDirectory;
import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.delivery.PartnerPushes;
import com.liveodds.push.delivery.RetryPolicy;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.ops.SecretMask;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.partner.PartnerPauses;
import com.liveodds.push.partner.PartnerReadiness;
import com.liveodds.push.partner.PartnerTls;
import com.liveodds.push.queue.KeyedQueueEndpoint;
import com.liveodds.push.settings.PartnerSettings;
import com.liveodds.push.settings.SettingsReader;
import com.liveodds.push.token.PartnerTokenProvider;

/**
 * One delivery per partner (contract section 16): for each partner of {@code liveodds.partners} (or the single
 * partner of {@code liveodds.partner.*}) its own beans ({@link PartnerBeans}: TLS, connection pool, token, the record
 * of its pushes, live matches and heartbeats, booking), its queue {@code liveoddsQueue:liveodds-push[-N]}, its
 * camel-http component {@code liveoddsHttp[-N]} (a component is found by its scheme), and its own routes made from
 * the route templates of routes/delivery.yaml and routes/heartbeat.yaml as the CamelContext starts, and from the active
 * source's template where the source reads per partner (routes/source-kafka.yaml, routes/source-jms.yaml). The
 * partner's beans are its routes' own (route-template local beans: {@code partnerPushes}, {@code partnerTokens},
 * {@code unbookedPush}, {@code partnerHeartbeats}, and the source's), never bound under a name of the registry;
 * operations read them in {@link PartnerDirectory} ({@code liveoddsPartnerDirectory}). The routes are the templates;
 * this bean only says how many partners there are. Over all partners it binds one readiness check {@code partner}
 * (liveoddsPartnerReadiness: DOWN only when every partner is down) and one liveness check {@code delivery}.
 */
public class LiveoddsPartners extends ServiceSupport implements CamelContextAware, StartupListener {

    /** The route templates each partner gets a route of (routes/delivery.yaml, routes/heartbeat.yaml). */
    static final List<String> TEMPLATES = List.of("liveodds-push", "liveodds-heartbeat-timer");
    /** The queue of a partner's pushes, the one its push route consumes ({@code suffix} empty for the single partner). */
    public static final String QUEUE = "liveoddsQueue:liveodds-push";
    private static final Logger LOG = LoggerFactory.getLogger(LiveoddsPartners.class);

    private final PartnerDirectory kits = new PartnerDirectory();
    private final PartnerDeliveries deliveries = new PartnerDeliveries();
    private CamelContext context;
    private Meters meters;
    private SecretMask secretMask;
    private RetryPolicy retryPolicy;
    private DeadLetterStore deadLetters;
    private UpstreamLiveness upstream;
    private PartnerPauses pauses;
    private boolean routesAdded;
    private int queueShare;
    /** The bytes of pushes each partner holds in memory at most: its share of liveodds.delivery.queue-bytes. */
    private long queueBytesShare;
    private String source = "file";

    /** {@code liveodds.source}: a source with a route template ({@code liveodds-source-<source>}) gets a route per partner. */
    public void setSource(String source) {
        this.source = source.trim().toLowerCase(Locale.ROOT);
    }

    public void setMeters(Meters meters) {
        this.meters = meters;
    }

    public void setSecretMask(SecretMask secretMask) {
        this.secretMask = secretMask;
    }

    public void setRetryPolicy(RetryPolicy retryPolicy) {
        this.retryPolicy = retryPolicy;
    }

    /** Whose count of each partner's dead letters the partner's pushes consult before they dead-letter one. */
    public void setDeadLetters(DeadLetterStore deadLetters) {
        this.deadLetters = deadLetters;
    }

    public void setUpstreamLiveness(UpstreamLiveness upstream) {
        this.upstream = upstream;
    }

    /** Which partners are paused (contract 24): a paused partner's queue starts no run, its source and heartbeats wait. */
    public void setPauses(PartnerPauses pauses) {
        this.pauses = pauses;
    }

    /** The partners' settings, as the properties of this CamelContext say. */
    public List<PartnerSettings> partners() {
        return kits.all().stream().map(PartnerBeans::settings).toList();
    }

    /**
     * The pushes each partner holds in memory at most: its share of {@code liveodds.delivery.queue-size}, which bounds
     * the heap whatever the number of partners; the rest of a partner's backlog waits with its source.
     */
    public int queueShare() {
        return queueShare;
    }

    /**
     * The bytes each partner's broker consumer takes ahead of what it has handed over: the brokers' own default, 1 MiB
     * (Artemis' consumer window, Kafka's fetch per partition), shared out among the partners, at least 64 KiB, so that
     * 16 partners' consumers buffer no more than one partner's would.
     */
    public int prefetchShare() {
        return Math.max(64 * 1024, 1024 * 1024 / kits.all().size());
    }

    /** Each partner's live matches (those the Kafka source's partitions carry the heartbeats of), in settings order. */
    public Map<PartnerSettings, LiveMatches> liveMatches() {
        Map<PartnerSettings, LiveMatches> byPartner = new LinkedHashMap<>();
        kits.all().forEach(kit -> byPartner.put(kit.settings(), kit.liveMatches()));
        return byPartner;
    }

    /** Each partner's booking by its partner id (the fixtures API's is_liveodds). */
    public Map<String, Booking> bookingsByPartnerId() {
        Map<String, Booking> byId = new LinkedHashMap<>();
        kits.all().forEach(kit -> byId.put(kit.settings().id(), kit.booking()));
        return byId;
    }

    /**
     * A bean of the partner's source route, its own under {@code name} in the source's template (the Kafka source's
     * {@code kafkaPartitions}): made by whoever makes the source, before the routes are.
     */
    public void addSourceBean(String partner, String name, Object bean) {
        kits.of(partner).orElseThrow().sourceBeans().put(name, bean);
    }

    /** Runs when beans.yaml loads: binds every partner's beans, and adds its routes as the context starts. */
    public void install() throws Exception {
        PropertiesComponent properties = context.getPropertiesComponent();
        List<PartnerSettings> partners = PartnerSettings.all(key -> properties.resolveProperty(key).orElse(null));
        SettingsReader settings = new SettingsReader(context);
        queueShare = Math.max(1, settings.count("liveodds.delivery.queue-size", 1) / partners.size());
        queueBytesShare = Math.max(1, settings.number("liveodds.delivery.queue-bytes-bytes") / partners.size());
        for (PartnerSettings partner : partners) {
            kits.add(kit(partner, settings));
        }
        context.getRegistry().bind("liveoddsPartnerDirectory", kits);
        deliveries.setCamelContext(context);
        deliveries.setPauses(pauses);
        context.getRegistry().bind("liveoddsDeliveries", deliveries);
        // one readiness check partner and one liveness check delivery over every partner (contract 16)
        Map<String, PartnerHealth> health = new LinkedHashMap<>();
        Map<String, KeyedQueueEndpoint> queues = new LinkedHashMap<>();
        kits.all().forEach(kit -> {
            health.put(kit.settings().name(), kit.health());
            queues.put(kit.settings().name(), kit.queue());
        });
        context.getRegistry().bind("liveoddsPartnerReadiness", new PartnerReadiness(health, pauses));
        pauses.addListener(this::steer);
        context.getRegistry().bind("liveoddsDeliveryHealthCheck", new DeliveryHealthCheck(queues));
        if (context.isStarted()) {
            begin();
        } else {
            context.addStartupListener(this);
        }
    }

    /**
     * camel-main makes the beans of a route file twice; the copy bound last (under {@code liveoddsPartners}) is the one
     * in use, and an earlier copy lets go of what it made.
     */
    private void begin() throws Exception {
        if (context.getRegistry().lookupByName("liveoddsPartners") != this) {
            doStop();
            return;
        }
        context.addService(this, true, true);
        addRoutes();
    }

    private PartnerBeans kit(PartnerSettings p, SettingsReader settings) {
        String s = p.suffix();
        Meters partnerMeters = meters.forPartner(p.name());
        Duration timeout = settings.duration("liveodds.delivery.timeout");

        PartnerTls tls = new PartnerTls(p.trustStore(), p.trustStorePassword(), p.keyStore(), p.keyStorePassword());
        tls.start();
        PartnerHealth health = new PartnerHealth();
        health.setDownAfter(settings.duration("liveodds.partner.down-after"));
        PartnerHttp http = new PartnerHttp(tls, timeout, p.maxInFlight());
        PoolingHttpClientConnectionManager connections = http.connectionManager();
        PartnerTokenProvider tokens = new PartnerTokenProvider();
        tokens.setCamelContext(context);
        // the partner's camel-http component, found by its scheme: by the push route's POST and the token request
        String httpComponent = PartnerTokenProvider.COMPONENT + s;
        context.getRegistry().bind(httpComponent, http.component(connections));
        tokens.setComponent(httpComponent);
        tokens.setAuthUrl(p.authUrl());
        tokens.setClientId(p.clientId());
        tokens.setClientSecret(p.clientSecret());
        tokens.setAudience(p.audience());
        tokens.setRefreshMargin(settings.duration("liveodds.token.refresh-margin"));
        tokens.setHealth(health);
        tokens.setSecretMask(secretMask);
        secretMask.setClientSecret(p.clientSecret());
        secretMask.setFixturesTokens(p.fixturesTokens());
        secretMask.setTrustStorePassword(p.trustStorePassword());
        secretMask.setKeyStorePassword(p.keyStorePassword());

        Booking booking = Booking.of(p.booking(), p.key("booking"));
        LiveMatches liveMatches = new LiveMatches(settings.duration("liveodds.heartbeat.interval"),
                settings.duration("liveodds.match.live-for"));
        Heartbeats heartbeats = new Heartbeats(liveMatches, upstream);
        heartbeats.setCamelContext(context);
        heartbeats.setMeters(partnerMeters);
        heartbeats.setBooking(booking);
        PartnerPushes pushes = new PartnerPushes(retryPolicy, liveMatches, health);
        pushes.setCamelContext(context);
        pushes.setMeters(partnerMeters);
        pushes.setPartner(p.name());
        pushes.setBooking(booking);
        pushes.setDeadLettersFull(() -> deadLetters.budget().isFull(p.name()));
        pushes.setPauseWhenFull(reason -> pauses.pause(p.name(), reason));
        KeyedQueueEndpoint queue = context.getEndpoint(QUEUE + s, KeyedQueueEndpoint.class);
        DeliveryGauges gauges = new DeliveryGauges(liveMatches, queue);
        gauges.setMeters(partnerMeters);

        pauses.addPartner(p.name(), p.id(), health, partnerMeters);
        if (pauses.isPaused(p.name())) {
            // paused before the restart: nothing of it runs from the start (its source is held once the context runs)
            queue.pauseRuns();
        }
        deliveries.add(p.name(), QUEUE + s, booking, health, pushes, liveMatches, partnerMeters);
        return new PartnerBeans(p, health, tokens, http, connections, queue, gauges, liveMatches, booking, pushes, heartbeats,
                new LinkedHashMap<>());
    }

    private synchronized void addRoutes() throws Exception {
        if (routesAdded) {
            return;
        }
        routesAdded = true;
        List<String> ids = new ArrayList<>();
        for (PartnerBeans kit : kits.all()) {
            PartnerSettings p = kit.settings();
            for (String template : TEMPLATES) {
                ids.add(TemplatedRouteBuilder.builder(context, template)
                        .routeId(template + p.suffix())
                        // camelCase: Camel takes a template parameter whose value is a local bean's name (a partner
                        // named "tokens") for a reference to it
                        .bean("partnerPushes", PartnerPushes.class, kit.pushes())
                        .bean("unbookedPush", Predicate.class, kit.pushes().unbookedCheck())
                        .bean("partnerTokens", PartnerTokenProvider.class, kit.tokens())
                        .bean("partnerHeartbeats", Heartbeats.class, kit.heartbeats())
                        .parameter("suffix", p.suffix())
                        .parameter("partner", p.name())
                        .parameter("partnerId", p.id())
                        .parameter("baseUrl", p.baseUrl())
                        .parameter("maxInFlight", p.maxInFlight())
                        .parameter("queueSize", queueShare)
                        .parameter("readAhead", Math.min(queueShare, 2 * p.maxInFlight()))
                        .parameter("queueBytes", queueBytesShare)
                        .add());
            }
            ids.add(addSourceRoute(kit));
            kit.gauges().register(context);
            if (!p.isSingle()) {
                LOG.info("Partner {}: pushing to {} as partner id {}, booking {}", p.name(), p.baseUrl(), p.id(), p.booking());
            }
        }
        pauses.registerGauges();
        if (!context.isStarted()) {
            // the context is starting and has built the routes it had: these are built now and start with them
            Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
            List<RouteDefinition> added = ids.stream().filter(Objects::nonNull).map(model::getRouteDefinition).toList();
            ((ModelCamelContext) context).startRouteDefinitions(added);
        }
    }

    /**
     * The active source's route of this partner, where the source reads per partner (routes/source-*.yaml with a
     * template): it names its partner ({@code liveoddsPartner}), keeps its own position on the broker, and starts with
     * the partner's other routes (made for the source chosen only). A list partner reads JMS through a shared durable subscription of its own on
     * the upstream multicast address; the single partner reads the queue, as it always has. The file source has no
     * template: the partners of a list share one reading of the inbox (liveodds-source-file-shared).
     */
    private String addSourceRoute(PartnerBeans kit) throws Exception {
        PartnerSettings p = kit.settings();
        String route = "liveodds-source-" + source;
        if (!hasTemplate(route)) {
            return null;
        }
        TemplatedRouteBuilder builder = TemplatedRouteBuilder.builder(context, route);
        kit.sourceBeans().forEach(builder::bean);
        return builder
                .routeId(route + p.suffix())
                .parameter("suffix", p.suffix())
                .parameter("partner", p.name())
                .parameter("jmsDestinationType", p.isSingle() ? "queue" : "topic")
                .parameter("jmsSubscribed", !p.isSingle())
                .parameter("fetchBytes", prefetchShare())
                .add();
    }

    private boolean hasTemplate(String id) {
        return context.getCamelContextExtension().getContextPlugin(Model.class).getRouteTemplateDefinition(id) != null;
    }

    /**
     * As the context starts, before it starts its routes: the partners' routes start with all the others. A route
     * started once the context runs costs every exchange: camel-main's HTTP servers (4.18) then each add an event
     * notifier, a list Camel walks at every asynchronous step of every exchange.
     */
    @Override
    public void onCamelContextStarting(CamelContext context, boolean alreadyStarted) throws Exception {
        begin();
    }

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
    }

    /**
     * The partners paused before the restart: their sources and heartbeats are held as soon as they run (liveoddsOptionalRoutes
     * calls this once it has started the source's routes).
     */
    public void holdPaused() throws Exception {
        if (context.getRegistry().lookupByName("liveoddsPartners") != this) {
            return;
        }
        for (PartnerBeans kit : kits.all()) {
            if (pauses.isPaused(kit.settings().name())) {
                steer(kit.settings().name(), true);
            }
        }
    }

    /**
     * What a pause does (contract 24): the partner's queue starts no run (a push on the wire finishes its attempt; what
     * waits, a retry among them, keeps its place), and the routes that feed it are suspended: its heartbeat timer and
     * its source where the source keeps a position of its own (its Kafka group's consumer pauses its partitions and
     * stays in the group, its JMS consumers stop receiving, the inbox gives it no more files). So what it has
     * not had waits there, unacknowledged, uncommitted or in the inbox, and a restart finds it there. A resume undoes
     * it, the queue first, so that what waited in it goes before anything new. The HTTP source keeps no position:
     * liveoddsDeliveries dead-letters a paused partner's pushes at once.
     */
    private void steer(String partner, boolean paused) throws Exception {
        PartnerBeans kit = kits.of(partner).orElseThrow();
        if (paused) {
            kit.queue().pauseRuns();
        } else {
            kit.queue().resumeRuns();
        }
        if (!context.isStarted()) {
            return;
        }
        String suffix = kit.settings().suffix();
        List<String> routes = new ArrayList<>(List.of("liveodds-heartbeat-timer" + suffix));
        if (!"http".equals(source)) {
            routes.add("liveodds-source-" + source + suffix);
        }
        for (String id : routes) {
            Route route = context.getRoute(id);
            // the consumer, not the route: a suspended route would read as DOWN in Camel's route health checks
            if (route != null && paused) {
                ServiceHelper.suspendService(route.getConsumer());
            } else if (route != null) {
                ServiceHelper.resumeService(route.getConsumer());
            }
        }
    }

    @Override
    protected void doStop() throws Exception {
        for (PartnerBeans kit : kits.all()) {
            kit.tokens().stop();
            kit.http().stop();
            kit.connections().close();
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
