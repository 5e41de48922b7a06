package com.liveodds.push;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.component.jms.JmsComponent;
import org.apache.camel.spi.Registry;

import com.liveodds.push.auth.BearerAuthenticator;
import com.liveodds.push.auth.BearerPolicy;
import com.liveodds.push.auth.PartnerAllowance;
import com.liveodds.push.auth.ServerDoor;
import com.liveodds.push.booking.BookingApi;
import com.liveodds.push.deadletter.DeadLetterBudget;
import com.liveodds.push.deadletter.DeadLetterReplay;
import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.delivery.RetryPolicy;
import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.demo.DemoProducer;
import com.liveodds.push.fixtures.FixturesCatalog;
import com.liveodds.push.heartbeat.UpstreamHealthCheck;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.httpapi.HttpAnswers;
import com.liveodds.push.httpapi.JsonErrors;
import com.liveodds.push.ingest.EnvelopeValidator;
import com.liveodds.push.ingest.FightMapping;
import com.liveodds.push.ingest.MatchIdResolver;
import com.liveodds.push.ingest.MessageVerdicts;
import com.liveodds.push.ingest.PushAssembler;
import com.liveodds.push.ingest.Rejections;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.ops.SecretMask;
import com.liveodds.push.queue.KeyedQueueComponent;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.partner.PartnerPauses;
import com.liveodds.push.recovery.Recoveries;
import com.liveodds.push.recovery.RetainedMessages;
import com.liveodds.push.recovery.kafka.ControlTopic;
import com.liveodds.push.recovery.kafka.TopicRetainer;
import com.liveodds.push.sandbox.PartnerSandbox;
import com.liveodds.push.settings.PartnerSettings;
import com.liveodds.push.settings.SettingsReader;
import com.liveodds.push.settings.StartupSettings;
import com.liveodds.push.source.SourceHealthCheck;
import com.liveodds.push.source.file.InboxDone;
import com.liveodds.push.source.file.InboxFileComponent;
import com.liveodds.push.source.file.InboxGuard;
import com.liveodds.push.source.file.InboxHandovers;
import com.liveodds.push.source.file.InboxInProgress;
import com.liveodds.push.source.file.InboxPace;
import com.liveodds.push.source.file.SharedInbox;
import com.liveodds.push.source.http.HttpSource;
import com.liveodds.push.source.http.IngestGate;
import com.liveodds.push.source.jms.JmsAcknowledgement;
import com.liveodds.push.source.jms.JmsSourceMonitor;
import com.liveodds.push.source.kafka.KafkaPartitions;
import com.liveodds.push.source.kafka.KafkaSourceComponent;
import com.liveodds.push.source.kafka.KafkaSourceMonitor;
import com.liveodds.push.status.OpsMeters;
import com.liveodds.push.status.PartnerPauseApi;
import com.liveodds.push.status.StatusPage;
import com.liveodds.push.status.StatusReport;
import com.liveodds.push.tracing.Tracing;

/**
 * The beans of the bundle, made from their typed settings and wired to each other in plain Java: the one bean of
 * routes/beans.yaml. Each bean is made after the beans it is handed, so no order of declarations can break the
 * wiring (Camel makes the beans of a YAML file in the order written, with no depends-on). Each is bound under its
 * {@code liveodds…} name, the one the routes use; a bean with {@code start}/{@code stop} is started as it is bound
 * and stopped when it is unbound (camel-main makes the beans of a route file twice and drops the first copy) or its
 * context closes. The sections follow the features: core, ingest, dead letters, file source, HTTP API, HTTP source,
 * admin, JMS source, Kafka source, recovery, embedded default, status, tracing.
 */
public class LiveoddsBeans implements CamelContextAware {

    private CamelContext context;
    private SettingsReader settings;

    /** Runs when routes/beans.yaml loads. */
    public void install() throws Exception {
        // first: the bundle's defaults and derived settings, before any setting below is read
        bind("liveoddsSettings", new LiveoddsSettings(), "apply", null);
        settings = new SettingsReader(context);

        // the one meter registry of the bundle's meters: camel-micrometer's metricsRegistry, or one of the bundle's
        // own in a host without metrics
        Meters meters = bind("liveoddsMeters", new Meters());
        UpstreamLiveness upstream = bind("liveoddsUpstreamLiveness",
                new UpstreamLiveness(settings.duration("liveodds.upstream.max-silence")));
        bind("liveoddsUpstreamHealthCheck", new UpstreamHealthCheck(upstream));
        SecretMask secretMask = bind("liveoddsSecretMask", secretMask());
        // the retry rule of routes/delivery.yaml: back-off from initial, doubled per attempt up to max, half of it
        // jitter; a longer Retry-After wins; no wait past the budget max-elapsed
        RetryPolicy retryPolicy = bind("liveoddsRetryPolicy", new RetryPolicy(settings.duration("liveodds.delivery.backoff.initial"),
                settings.duration("liveodds.delivery.backoff.max"), settings.duration("liveodds.delivery.max-elapsed")));
        // the partners' queues (liveoddsQueue:liveodds-push[-N]): a component of the bundle's own, the host's seda untouched
        bind("liveoddsQueue", new KeyedQueueComponent());
        // what the queue asks before each attempt and during a retry delay: did the source take the message back?
        bind("liveoddsWithdrawn", SourceHandover.WITHDRAWN);
        // which partners are paused (contract 24): on disk, so that a pause outlives a restart
        PartnerPauses pauses = new PartnerPauses(Path.of(settings.text("liveodds.partner.pause-file")));
        pauses.setPauseAfter(settings.duration("liveodds.partner.pause-after"));
        bind("liveoddsPartnerPauses", pauses);
        DeadLetterStore deadLetters = deadLetters(secretMask, pauses);
        LiveoddsPartners partners = partners(meters, secretMask, retryPolicy, upstream, deadLetters);
        partners.setPauses(pauses);
        bind("liveoddsPartners", partners, "install", null);
        bind("liveoddsOptionalRoutes", optionalRoutes(partners), "install", null);

        Ingest ingest = ingest(meters);
        fileSource(deadLetters, ingest.rejections(), upstream, partners.queueShare(), pauses);
        BearerAuthenticator partnerTokens = httpApi(partners);
        httpSource();
        door(partnerTokens, admin(pauses));
        jmsSource(partners);
        Map<String, KafkaPartitions> kafkaPartitions = kafkaSource(partners, ingest);
        SourceHealthCheck sourceCheck = new SourceHealthCheck();
        sourceCheck.setSource(settings.text("liveodds.source"));
        // readiness check "source": DOWN while the active source cannot receive (file and http have no monitor)
        bind("liveoddsSourceHealthCheck", sourceCheck);
        recovery(partners, meters, ingest, kafkaPartitions);
        embeddedDefault();
        status(meters);
        tracing();
    }

    /**
     * Every secret of the settings, and every access token handed out, masked in dead letters (liveoddsPartners adds
     * each partner's client secret, fixtures tokens and key store passwords).
     */
    private SecretMask secretMask() {
        SecretMask mask = new SecretMask();
        mask.setAdminTokens(settings.text("liveodds.admin.tokens"));
        mask.setIngestTokens(settings.text("liveodds.source.http.tokens"));
        mask.setJmsPassword(settings.text("liveodds.source.jms.password"));
        return mask;
    }

    /**
     * Every partner's delivery (contract 16): for the single partner of liveodds.partner.*, or each partner of
     * liveodds.partners, its own TLS, camel-http component liveoddsHttp[-N] and pool, token, booking, queue, record of
     * its pushes and heartbeats; and its routes, from the route templates of delivery.yaml and heartbeat.yaml.
     */
    private LiveoddsPartners partners(Meters meters, SecretMask secretMask, RetryPolicy retryPolicy,
                                      UpstreamLiveness upstream, DeadLetterStore deadLetters) {
        LiveoddsPartners partners = new LiveoddsPartners();
        partners.setSource(settings.text("liveodds.source"));
        partners.setMeters(meters);
        partners.setSecretMask(secretMask);
        partners.setRetryPolicy(retryPolicy);
        partners.setUpstreamLiveness(upstream);
        partners.setDeadLetters(deadLetters);
        return partners;
    }

    /** The routes only some settings want (the active source's, the sandbox's, the demo producer's). */
    private OptionalRoutes optionalRoutes(LiveoddsPartners partners) {
        OptionalRoutes routes = new OptionalRoutes();
        routes.setSource(settings.text("liveodds.source"));
        routes.setPartners(partners);
        routes.setSandbox(settings.flag("liveodds.sandbox.enabled"));
        routes.setDemo(settings.flag("liveodds.demo.enabled"));
        return routes;
    }

    /** routes/ingest.yaml: validation, rejections by reason, the match id, the push; a message judged once for all partners. */
    private Ingest ingest(Meters meters) {
        EnvelopeValidator validator = bind("liveoddsEnvelopeValidator", new EnvelopeValidator());
        bind("liveoddsAliveMessage", validator.aliveCheck());
        Rejections rejections = new Rejections();
        rejections.setMeters(meters);
        bind("liveoddsRejections", rejections);
        FightMapping mapping = new FightMapping(settings.text("liveodds.mapping.file"));
        mapping.setMeters(meters);
        bind("liveoddsFightMapping", mapping);
        MatchIdResolver resolver = bind("liveoddsMatchIdResolver", new MatchIdResolver(mapping));
        PushAssembler assembler = bind("liveoddsPushAssembler", new PushAssembler(resolver));
        MessageVerdicts verdicts = new MessageVerdicts();
        verdicts.setPartners(settings.text("liveodds.partners", ""));
        bind("liveoddsMessageVerdicts", verdicts);
        return new Ingest(validator, rejections, resolver, assembler);
    }

    /**
     * The dead letters (routes/dead-letters.yaml, admin.yaml): the store, secrets masked, each partner's bounded by
     * liveodds.dead-letter.max-per-partner, and the replay.
     */
    private DeadLetterStore deadLetters(SecretMask secretMask, PartnerPauses pauses) {
        DeadLetterStore store = new DeadLetterStore(settings.text("liveodds.dead-letter.dir"),
                new DeadLetterBudget(settings.count("liveodds.dead-letter.max-per-partner", 1)));
        store.setSecretMask(secretMask);
        bind("liveoddsDeadLetterStore", store);
        DeadLetterReplay replay = new DeadLetterReplay(store, "direct:liveodds-replay");
        // a paused partner's letters stay in the store: a replay would wait for its resume
        replay.setPaused(pauses::isPaused);
        bind("liveoddsDeadLetterReplay", replay);
        return store;
    }

    /**
     * routes/source-file.yaml: only regular files up to the size limit are read, in file-name order; with several
     * partners the inbox is listed and each file read once for all of them, a file moved to .done/ once every partner
     * is done with it.
     */
    private void fileSource(DeadLetterStore deadLetters, Rejections rejections, UpstreamLiveness upstream, int queueShare,
                            PartnerPauses pauses) {
        // in hand at most: a queue share, the pushes just ended whose files are not yet let go (one per push in flight),
        // and two listings' batches (namesPerListing of routes/source-file.yaml); a file the set refused would be
        // passed over while a later one of its match is taken
        int batch = settings.count("liveodds.source.file.max-per-poll", StartupSettings.FILE_BATCH_LEAST,
                StartupSettings.FILE_BATCH_MOST);
        int inFlight = settings.count("liveodds.delivery.max-in-flight", 1);
        InboxInProgress inHand = new InboxInProgress(queueShare + inFlight + 2 * batch);
        bind("liveoddsInboxInProgress", inHand);
        InboxGuard guard = new InboxGuard(deadLetters, rejections, upstream, inHand);
        guard.setMaxSize(settings.number("liveodds.source.file.max-size-bytes"));
        bind("liveoddsInboxGuard", guard);
        bind("liveoddsInboxDone", new InboxDone());
        bind("liveoddsInboxHandovers", new InboxHandovers());
        // both inbox routes: Camel's file component, its listing taking a batch's first names without sorting the folder
        bind("liveoddsFile", new InboxFileComponent());
        // the shared inbox's exchange ends once its copies are queued: it holds one listing's batch at most (what each
        // partner has in hand is SharedInbox's)
        bind("liveoddsSharedInboxInProgress", new InboxInProgress(2 * batch));
        // a poll's files in hand (its queue's at most), and going: delivery's work while the next poll comes a
        // poll-delay later and reads its batch, rather than a full queue in hand; with half of that, delivery at 2,900
        // messages a second ran through what was in hand within a poll-delay and matches waited (docs/benchmarks.md)
        int perPoll = Math.min(batch, settings.count("liveodds.source.file.read-per-poll", 1, StartupSettings.FILE_BATCH_MOST));
        bind("liveoddsInboxPace", new InboxPace(Math.max(1, Math.min(queueShare, perPoll)), Duration.ofSeconds(1)));
        SharedInbox inbox = new SharedInbox(guard);
        inbox.setDir(settings.text("liveodds.source.file.dir"));
        inbox.setPartners(settings.text("liveodds.partners", ""));
        inbox.setQueueSize(queueShare);
        // a paused partner takes no file: its files wait in the inbox, its progress where it stopped
        inbox.setPaused(pauses::isPaused);
        bind("liveoddsSharedInbox", inbox);
    }

    /**
     * The HTTP API on camel.server.port (fixtures.yaml, booking.yaml): the bearer check of liveodds.fixtures.auth.*, each
     * token bound to its partner, as a policy step; JSON answers that carry no header of the request; a JSON 404 for a path
     * nothing serves; is_liveodds of each partner from its booking. Returns the partners' bearer check.
     */
    private BearerAuthenticator httpApi(LiveoddsPartners partners) {
        BearerAuthenticator fixtures = jwtCapable(settings.text("liveodds.fixtures.auth.mode"), "the fixtures API");
        fixtures.setBoundToPartners(true);
        fixtures.setPartnerClaim(settings.text("liveodds.fixtures.auth.partner-claim"));
        fixtures.setTokensSetting("liveodds.fixtures.auth.tokens");
        bind("liveoddsBearerAuthenticator", fixtures, "start", null);
        bind("liveoddsPartnerPolicy", new BearerPolicy(fixtures, true));

        bind("liveoddsHttpAnswers", new HttpAnswers());
        bind("liveoddsJsonErrors", new JsonErrors());
        FixturesCatalog catalog = new FixturesCatalog();
        catalog.setFile(settings.text("liveodds.fixtures.file"));
        catalog.setBookings(partners.bookingsByPartnerId());
        bind("liveoddsFixturesCatalog", catalog);
        // booking.yaml: the partner's own booking, written to its booking file
        BookingApi booking = new BookingApi();
        booking.setBookings(partners.bookingsByPartnerId());
        bind("liveoddsBookingApi", booking);
        return fixtures;
    }

    /** A bearer check in the given mode, its jwt mode on the keys, issuer and audience of liveodds.fixtures.auth.*. */
    private BearerAuthenticator jwtCapable(String mode, String guards) {
        BearerAuthenticator authenticator = new BearerAuthenticator();
        authenticator.setMode(mode);
        authenticator.setGuards(guards);
        authenticator.setJwksUrl(settings.text("liveodds.fixtures.auth.jwks-url"));
        authenticator.setIssuer(settings.text("liveodds.fixtures.auth.issuer"));
        authenticator.setAudience(settings.text("liveodds.fixtures.auth.audience"));
        authenticator.setJwksTimeout(settings.duration("liveodds.fixtures.auth.jwks-timeout"));
        authenticator.setJwksCache(settings.duration("liveodds.fixtures.auth.jwks-cache"));
        authenticator.setClockSkew(settings.duration("liveodds.fixtures.auth.clock-skew"));
        return authenticator;
    }

    /**
     * routes/source-http.yaml: POST /v1/ingest, its bearer, size and memory checks before any of the body is read. Its
     * bearer check: one partner, as the fixtures API; several, static liveodds.source.http.tokens, so that no partner's
     * token feeds every partner (StartupSettings derives liveodds.source.http.auth.*).
     */
    private void httpSource() {
        BearerAuthenticator authenticator = jwtCapable(settings.text("liveodds.source.http.auth.mode"), "the HTTP source");
        authenticator.setTokens(settings.text("liveodds.source.http.auth.tokens"));
        authenticator.setTokensSetting(settings.text("liveodds.source.http.auth.tokens-setting"));
        authenticator.setInUse(settings.flag("liveodds.source.http.auth.in-use"));
        bind("liveoddsIngestAuthenticator", authenticator, "start", null);
        bind("liveoddsIngestPolicy", new BearerPolicy(authenticator));
        HttpSource source = new HttpSource();
        source.setMaxBody(settings.number("liveodds.source.http.max-body-bytes"));
        source.setMaxInFlight(settings.count("liveodds.source.http.max-in-flight", 1));
        source.setRetryAfter(settings.duration("liveodds.source.http.retry-after"));
        bind("liveoddsHttpSource", source);
        IngestGate gate = new IngestGate(authenticator, source);
        gate.setPath("/v1/ingest");
        gate.setMaxReceiving(settings.number("liveodds.source.http.max-receiving-bytes"));
        // a chunked body is counted as the most the server takes (16 MB when the host sets no limit)
        gate.setServerMaxBody(settings.number("camel.server.maxBodySize", 16L * 1024 * 1024));
        bind("liveoddsIngestGate", gate);
    }

    /**
     * The door of camel.server.port (contract 22, installed by routes/fixtures.yaml): the partner paths take a partner's
     * token and at most 4 KiB of body, within each partner's share; the operator paths an admin token and 64 KiB; the
     * status page nothing; /v1/ingest its own gate (liveoddsIngestGate). A body that has not ended by
     * liveodds.delivery.timeout is cut. Only the bundle's own paths: a host's /admin/... is the host's.
     */
    private void door(BearerAuthenticator partnerTokens, BearerAuthenticator adminTokens) {
        PartnerAllowance allowance = new PartnerAllowance(settings.count("liveodds.partner.api.max-concurrent", 1),
                settings.count("liveodds.partner.api.max-requests", 1));
        bind("liveoddsServerDoor", new ServerDoor(List.of(
                new ServerDoor.Entrance("/v1/ingest", null, false, -1),
                new ServerDoor.Entrance("/v1/liveodds/", partnerTokens, true, 4 * 1024),
                new ServerDoor.Entrance("/admin/status", adminTokens, false, 64 * 1024),
                new ServerDoor.Entrance("/admin/dead-letters", adminTokens, false, 64 * 1024),
                new ServerDoor.Entrance("/admin/partners/", adminTokens, false, 64 * 1024),
                new ServerDoor.Entrance("/status", null, false, 0)),
                allowance, settings.duration("liveodds.delivery.timeout")));
    }

    /**
     * routes/admin.yaml: its own tokens, so a partner's fixtures token never opens the operator endpoints; the pause and
     * resume of a partner (routes/pauses.yaml).
     */
    private BearerAuthenticator admin(PartnerPauses pauses) {
        BearerAuthenticator authenticator = new BearerAuthenticator();
        authenticator.setMode("static");
        authenticator.setTokens(settings.text("liveodds.admin.tokens"));
        authenticator.setTokensSetting("liveodds.admin.tokens");
        authenticator.setGuards("the operator endpoints");
        bind("liveoddsAdminAuthenticator", authenticator, "start", null);
        bind("liveoddsAdminPolicy", new BearerPolicy(authenticator));
        bind("liveoddsPartnerPauseApi", new PartnerPauseApi(pauses));
        return authenticator;
    }

    /**
     * routes/source-jms.yaml, on a JMS component of the source's own (the host's jms component is never created or
     * configured by the bundle). The connection factory, the component and the acknowledgement are shared; each
     * partner's route (template liveodds-source-jms) has its consumer, its queue on the broker and its readiness
     * monitor liveoddsJmsSourceMonitor[-N].
     */
    private void jmsSource(LiveoddsPartners partners) throws Exception {
        ActiveMQConnectionFactory connections = new ActiveMQConnectionFactory();
        String url = settings.text("liveodds.source.jms.url");
        connections.setBrokerURL(url);
        if (!url.contains("consumerWindowSize")) {
            connections.setConsumerWindowSize(partners.prefetchShare());
        }
        connections.setUser(settings.text("liveodds.source.jms.username"));
        connections.setPassword(settings.text("liveodds.source.jms.password"));
        bind("liveoddsJmsConnectionFactory", connections);
        JmsComponent jms = new JmsComponent();
        jms.setConnectionFactory(connections);
        bind("liveoddsJms", jms);
        bind("liveoddsJmsAcknowledgement", new JmsAcknowledgement());
        for (PartnerSettings partner : partners.partners()) {
            bind("liveoddsJmsSourceMonitor" + partner.suffix(), new JmsSourceMonitor("liveodds-source-jms" + partner.suffix()));
        }
    }

    /**
     * routes/source-kafka.yaml: each partner reads the upstream topic in a consumer group of its own
     * ({@code <liveodds.source.kafka.group>-N}), so each keeps its own committed offsets on the broker. Per partner,
     * named with its suffix: its partitions owned, commits and the heartbeats of its matches that move with them
     * (its KafkaPartitions, with that partner's live matches, a bean of its source route's own: kafkaPartitions), its own
     * Kafka component liveoddsKafka (the host's kafka component and consumers are left alone) and its readiness monitor
     * liveoddsKafkaSourceMonitor. Returns
     * each partner's partitions by partner id.
     */
    private Map<String, KafkaPartitions> kafkaSource(LiveoddsPartners partners, Ingest ingest) {
        String brokers = settings.text("liveodds.source.kafka.brokers");
        Duration lookBack = settings.duration("liveodds.source.kafka.look-back");
        int lookBackRecords = settings.count("liveodds.source.kafka.look-back-records", 0);
        Duration revokeWait = settings.duration("liveodds.source.kafka.revoke-wait");
        Map<String, KafkaPartitions> byPartnerId = new LinkedHashMap<>();
        partners.liveMatches().forEach((partner, liveMatches) -> {
            String suffix = partner.suffix();
            KafkaPartitions partitions = new KafkaPartitions(liveMatches, ingest.validator(), ingest.resolver());
            partitions.setBrokers(brokers);
            partitions.setLookBack(lookBack);
            partitions.setLookBackRecords(lookBackRecords);
            partitions.setRevokeWait(revokeWait);
            partners.addSourceBean(partner.name(), "kafkaPartitions", partitions);
            bind("liveoddsKafka" + suffix, new KafkaSourceComponent(partitions));
            bind("liveoddsKafkaSourceMonitor" + suffix, new KafkaSourceMonitor(partitions, "liveodds-source-kafka" + suffix));
            byPartnerId.put(partner.id(), partitions);
        });
        return byPartnerId;
    }

    /**
     * recovery.yaml and ingest.yaml: each accepted message kept for liveodds.recovery.retention (an SQLite file in
     * liveodds.recovery.dir), and the partners' recoveries, pushed again through liveoddsDeliveries. With the Kafka
     * source and liveodds.source.kafka.control-topic (several instances), the whole topic is kept here by a reader of
     * its own and each recovery goes through the control topic to the instances that own its matches' partitions.
     */
    private void recovery(LiveoddsPartners partners, Meters meters, Ingest ingest, Map<String, KafkaPartitions> kafka) {
        RetainedMessages retained = new RetainedMessages(Path.of(settings.text("liveodds.recovery.dir")),
                settings.duration("liveodds.recovery.retention"));
        bind("liveoddsRetainedMessages", retained, null, "stop");
        retained.setMeters(meters);
        Recoveries recoveries = new Recoveries(retained, settings.count("liveodds.recovery.max-requests", 1),
                partners.queueShare(), settings.number("liveodds.recovery.max-bytes-bytes"));
        Map<String, Booking> bookings = partners.bookingsByPartnerId();
        for (PartnerSettings partner : partners.partners()) {
            recoveries.addPartner(partner.id(), partner.name(), bookings.get(partner.id()), meters.forPartner(partner.name()));
        }
        bind("liveoddsRecoveries", recoveries, null, "stop");
        if (settings.flag(StartupSettings.KEPT_FROM_TOPIC)) {
            String brokers = settings.text("liveodds.source.kafka.brokers");
            TopicRetainer retainer = new TopicRetainer(brokers, settings.text("liveodds.source.kafka.topic"), retained,
                    ingest.validator(), ingest.assembler());
            ControlTopic control = new ControlTopic(recoveries, retained, kafka, retainer);
            control.setBrokers(brokers);
            control.setControlTopic(settings.text("liveodds.source.kafka.control-topic"));
            recoveries.setRouting(control);
            bind(ControlTopic.BEAN, control, "install", null);
        }
    }

    /** sandbox.yaml and demo-producer.yaml: the sandbox stands in for every partner of the settings. */
    private void embeddedDefault() {
        PartnerSandbox sandbox = new PartnerSandbox();
        sandbox.setTokenLifetime(settings.duration("liveodds.sandbox.token-lifetime"));
        bind("liveoddsPartnerSandbox", sandbox, "start", null);
        DemoProducer demo = new DemoProducer();
        demo.setCard(settings.text("liveodds.demo.card"));
        demo.setAliveEvery(settings.duration("liveodds.demo.alive-every"));
        bind("liveoddsDemoProducer", demo);
    }

    /** status.yaml: the status page and what it reads; the operations gauges. */
    private void status(Meters meters) {
        StatusReport report = new StatusReport();
        report.setMeters(meters);
        bind("liveoddsStatusReport", report);
        bind("liveoddsStatusPage", new StatusPage());
        OpsMeters opsMeters = new OpsMeters();
        opsMeters.setMeters(meters);
        bind("liveoddsOpsMeters", opsMeters);
    }

    /** Tracing (contract 21), off unless liveodds.tracing.enabled: nothing of OpenTelemetry is made or loaded then. */
    private void tracing() {
        if (settings.flag("liveodds.tracing.enabled")) {
            Tracing.install(context);
        }
    }

    private <T> T bind(String name, T bean) {
        return bind(name, bean, null, null);
    }

    /** Binds in place of an earlier copy (whose stop method Camel calls), hands the bean its context and starts it. */
    private <T> T bind(String name, T bean, String startMethod, String stopMethod) {
        Registry registry = context.getRegistry();
        registry.unbind(name);
        registry.bind(name, bean, startMethod, stopMethod);
        return bean;
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    private record Ingest(EnvelopeValidator validator, Rejections rejections, MatchIdResolver resolver, PushAssembler assembler) {
    }
}
