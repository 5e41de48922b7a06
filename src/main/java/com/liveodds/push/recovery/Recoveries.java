package com.liveodds.push.recovery;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.liveodds.push.delivery.PartnerDeliveries;
import com.liveodds.push.delivery.PartnerPushes;
import com.liveodds.push.delivery.Push;
import com.liveodds.push.delivery.SourceHandover;
import com.liveodds.push.delivery.PushOutcome;
import com.liveodds.push.httpapi.HttpProblem;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.queue.KeyHold;
import com.liveodds.push.queue.KeyedQueueConstants;
import com.liveodds.push.settings.Timestamps;
import io.micrometer.core.instrument.Counter;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.Header;
import org.apache.camel.support.DefaultExchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recovery asked by the partner (contract 20): {@code POST /v1/liveodds/{partnerId}/recovery} with {@code match} or
 * {@code after}, answered 202 at once with what it covers; each partner's recoveries then run one after another on a
 * thread of that partner, pushing the retained messages again through the partner's per-match delivery
 * ({@code liveoddsDeliveries}, InOut, the partner named in {@value PartnerDeliveries#PARTNER}), in the order they were
 * accepted, with their original message ids and bodies. A recovery holds at most a quarter of the partner's room in
 * the delivery queues ({@code liveodds.delivery.queue-size} shared by the partners), so the live pushes always find
 * theirs, and at most a quarter of {@code liveodds.recovery.max-bytes} of bodies (half read ahead, half in delivery),
 * so that {@value #RUNNING} recoveries run at once, of all partners, and one waits for its turn (queued) before it holds
 * any match; within that it queues as fast as it reads, so that the older messages it brings are queued before the
 * live ones that follow them. {@code GET .../recovery/{id}} tells how far it got. At most {@code max-requests} recoveries per partner in 10 minutes (429 with {@code Retry-After}).
 * <p>
 * With a {@link RecoveryRouting} (several instances on Kafka), an accepted request is handed on instead of run here:
 * each instance runs the parts whose matches it owns ({@link #runPart}), and every instance learns of every request
 * ({@link #remember}: GET answers anywhere, the limit counts them all) and of its parts' progress ({@link #progress}).
 */
public class Recoveries implements CamelContextAware {

    /** Pushes of one recovery in delivery at once, at least. */
    static final int MIN_WINDOW = 64;
    /** Recoveries running at once, of all partners: each holds this part of {@code liveodds.recovery.max-bytes}. */
    static final int RUNNING = 4;
    static final Duration LIMIT_WINDOW = Duration.ofMinutes(10);
    /** The largest body a recovery request may have. */
    static final int MAX_BODY = 4096;
    /** Recoveries remembered per partner (older ones answer 404). */
    private static final int KEPT = 100;
    private static final Pattern MATCH_ID = Pattern.compile("match:[0-9]{1,30}");
    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    private static final Set<String> FIELDS = Set.of("match", "after", "request_id");
    private static final Logger LOG = LoggerFactory.getLogger(Recoveries.class);
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final RetainedMessages store;
    private final int maxRequests;
    private final int window;
    /** Body characters a running recovery reads ahead, and as many it has in delivery. */
    private final int bytesAhead;
    private final Semaphore running = new Semaphore(RUNNING, true);
    /** Partner id → the partner. */
    private final Map<String, Partner> partners = new LinkedHashMap<>();
    private CamelContext context;
    private volatile PartnerDeliveries deliveries;
    private volatile RecoveryRouting routing;

    /**
     * @param queueShare the pushes a partner's delivery queues hold at most (a quarter of them is a recovery's)
     * @param maxBytes   the bodies all recoveries hold at once ({@code liveodds.recovery.max-bytes})
     */
    public Recoveries(RetainedMessages store, int maxRequests, int queueShare, long maxBytes) {
        this.store = store;
        this.maxRequests = maxRequests;
        this.window = Math.max(MIN_WINDOW, queueShare / 4);
        this.bytesAhead = (int) Math.max(1, Math.min(Integer.MAX_VALUE, maxBytes / RUNNING / 2));
    }

    /** Hands accepted requests on to the instances that own their matches instead of running them here. */
    public void setRouting(RecoveryRouting routing) {
        this.routing = routing;
    }

    /** A partner recoveries are asked for: its id (of the path), name ({@code ""} for the single partner) and booking. */
    public void addPartner(String id, String name, Booking booking, Meters meters) {
        partners.put(id, new Partner(name, id, booking, meters));
    }

    /** {@code POST .../recovery}: checks the request and answers 202 with what it covers, or refuses it. */
    public String request(@Header("partnerId") String partnerId, byte[] body) throws SQLException {
        Partner partner = partner(partnerId);
        JsonNode request = parse(body);
        String requestId = requestId(request.get("request_id"));
        Instant now = Instant.now();
        // refused before any work when over the limit; counted only once answered 202 (admit)
        partner.checkLimit(now, maxRequests);
        long upTo = store.newest();
        List<RetainedMessages.Selection> selections = new ArrayList<>();
        if (request.has("match")) {
            String match = text(request.get("match"), "match");
            if (!MATCH_ID.matcher(match).matches()) {
                throw new HttpProblem(400, "invalid_match", "a match id is match: followed by 1 to 30 digits 0-9");
            }
            if (!partner.booking.isBooked(match)) {
                throw new HttpProblem(409, "not_booked", "the match is not booked by this partner: book it first");
            }
            selections.add(new RetainedMessages.Selection(match, null, upTo));
        } else {
            Instant after = after(request.get("after"), now);
            for (String match : partner.booking.isAll() ? store.matches() : new TreeSet<>(partner.booking.matchIds())) {
                selections.add(new RetainedMessages.Selection(match, after, upTo));
            }
        }
        int messages = 0;
        for (RetainedMessages.Selection selection : selections) {
            messages += store.count(selection);
        }
        Recovery recovery = new Recovery(requestId, partner.name, partnerId, selections, messages, now);
        partner.admit(recovery, now, maxRequests);
        LOG.info("Recovery {} of partner {}: {} matches, {} messages", recovery.requestId(), partner.label(),
                selections.size(), messages);
        if (routing == null) {
            partner.runner(context).execute(() -> run(partner, recovery, () -> OptionalLong.of(store.newest()), () -> true));
        } else {
            route(partner, recovery);
        }
        return recovery.accepted().toString();
    }

    /** Hands the request on before it is answered 202: a request nobody will push is refused, and not counted. */
    private void route(Partner partner, Recovery recovery) {
        try {
            recovery.routed(routing.route(recovery.request()));
        } catch (RuntimeException e) {
            partner.forget(recovery);
            LOG.warn("Recovery {} of partner {} could not be handed on: {}", recovery.requestId(), partner.label(), e.toString());
            throw new HttpProblem(503, "unavailable", "the recovery could not be handed to the instances that push its"
                    + " matches: ask again", 5);
        }
    }

    /**
     * A routed request, as every instance learns it (the one that accepted it included): known to GET and to
     * {@code /admin/status} here, and counted toward its partner's limit. A request id known already changes nothing.
     */
    public void remember(RecoveryRouting.Request request, Set<String> parts) {
        Partner partner = partners.get(request.partnerId());
        if (partner == null) {
            return;
        }
        List<RetainedMessages.Selection> selections = request.matches().stream()
                .map(match -> new RetainedMessages.Selection(match, request.after(), 0)).toList();
        Recovery recovery = new Recovery(request.requestId(), partner.name, request.partnerId(), selections,
                request.messages(), request.askedAt());
        recovery.routed(parts);
        partner.remember(recovery);
    }

    /** A part's progress, as the instance that pushes it reports it. */
    public void progress(String partnerId, String requestId, String part, RecoveryRouting.Progress progress) {
        Partner partner = partners.get(partnerId);
        Recovery recovery = partner == null ? null : partner.recoveries.get(requestId);
        if (recovery != null) {
            recovery.reported(part, progress);
        }
    }

    /**
     * Runs a part of a routed request here, on the partner's recovery thread after the recoveries before it: its
     * matches from their retained messages up to {@link RecoveryRouting.Part#upTo}, through the partner's delivery.
     */
    public void runPart(RecoveryRouting.Part part) {
        Partner partner = partners.get(part.request().partnerId());
        if (partner == null) {
            part.dropped();
            return;
        }
        try {
            partner.runner(context).execute(() -> runPart(partner, part));
        } catch (RejectedExecutionException stopping) {
            part.dropped();
        }
    }

    private void runPart(Partner partner, RecoveryRouting.Part part) {
        String requestId = part.request().requestId();
        try {
            OptionalLong upTo = part.upTo();
            if (upTo.isEmpty()) {
                part.dropped();
                return;
            }
            List<RetainedMessages.Selection> selections = new ArrayList<>();
            int messages = 0;
            for (String match : part.matches()) {
                RetainedMessages.Selection selection = new RetainedMessages.Selection(match, part.request().after(),
                        upTo.getAsLong());
                selections.add(selection);
                messages += store.count(selection);
            }
            Recovery recovery = new Recovery(requestId, partner.name, partner.id, selections, messages, Instant.now());
            part.started(recovery::progress);
            if (run(partner, recovery, part::upTo, part::isHere)) {
                part.ended(recovery.progress());
            } else {
                part.dropped();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            part.dropped();
        } catch (Exception e) {
            LOG.warn("Recovery {} of partner {}: a part failed: {}", requestId, partner.label(), e.toString());
            part.ended(new RecoveryRouting.Progress("failed", 0, 0, 0, Instant.now(), "the retained messages could not be read"));
        }
    }

    /** {@code GET .../recovery/{requestId}}: how far it got; 404 for an id this partner has not used. */
    public String status(@Header("partnerId") String partnerId, @Header("requestId") String requestId) {
        Recovery recovery = partner(partnerId).recoveries.get(requestId);
        if (recovery == null) {
            throw new HttpProblem(404, "not_found", "no recovery of this partner has that request id");
        }
        return recovery.status().toString();
    }

    /** The most recent recoveries of every partner, newest first (for /admin/status). */
    public ArrayNode recent(int most) {
        List<Recovery> all = new ArrayList<>();
        partners.values().forEach(p -> {
            synchronized (p) {
                all.addAll(p.recoveries.values());
            }
        });
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        all.stream().map(Recovery::status)
                .sorted(Comparator.comparing((JsonNode r) -> r.path("asked_at").asText()).reversed())
                .limit(most).forEach(list::add);
        return list;
    }

    private Partner partner(String partnerId) {
        Partner partner = partnerId == null ? null : partners.get(partnerId);
        if (partner == null) {
            throw new HttpProblem(404, "not_found", "unknown partner id");
        }
        return partner;
    }

    private static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw invalid("the body is a JSON object with match or after");
        }
        if (body.length > MAX_BODY) {
            throw new HttpProblem(413, "payload_too_large", "a recovery request is at most " + MAX_BODY + " bytes");
        }
        JsonNode request;
        try {
            request = JSON.readTree(new String(body, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw invalid("the body is not one JSON object");
        }
        if (request == null || !request.isObject()) {
            throw invalid("the body is not one JSON object");
        }
        for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
            if (!FIELDS.contains(names.next())) {
                throw invalid("unknown field: a recovery request has match or after, and optionally request_id");
            }
        }
        if (request.has("match") == request.has("after")) {
            throw invalid("give either match or after");
        }
        return request;
    }

    private static String requestId(JsonNode given) {
        if (given == null) {
            return UUID.randomUUID().toString();
        }
        String id = text(given, "request_id");
        if (!REQUEST_ID.matcher(id).matches()) {
            throw invalid("request_id is 1 to 64 characters of A-Z a-z 0-9 . _ : -");
        }
        return id;
    }

    private Instant after(JsonNode given, Instant now) {
        Instant after;
        try {
            after = Instant.parse(text(given, "after"));
        } catch (DateTimeParseException e) {
            throw invalid("after is an ISO-8601 time in UTC, e.g. 2026-11-21T20:15:03.123Z");
        }
        if (after.isAfter(now)) {
            throw invalid("after is in the future");
        }
        Instant earliest = store.earliest(now);
        if (after.isBefore(earliest)) {
            throw invalid("after is older than what is retained (liveodds.recovery.retention " + store.retention()
                    + "): the earliest is " + Timestamps.format(earliest));
        }
        return after;
    }

    private static String text(JsonNode value, String field) {
        if (value == null || !value.isTextual()) {
            throw invalid(field + " is a string");
        }
        return value.asText();
    }

    private static HttpProblem invalid(String message) {
        return new HttpProblem(400, "invalid_request", message);
    }

    /**
     * Pushes the recovery's messages again, match after match, once one of the {@value #RUNNING} places is free (its
     * own thread waits; no match is held meanwhile), at most {@link #window} pushes and {@link #bytesAhead} body
     * characters in delivery at once, reading pages of at most as many. Each match
     * is held in the partner's queue while its messages are read and queued: its live pushes queued meanwhile (newer
     * than what is read, so the partner must have them last) wait behind them, and its source never waits.
     *
     * @param bound the newest retained message to push, asked once the match is held (with Kafka, once the store holds
     *              what this instance's consumer handed on); empty when the match is no longer this instance's to push
     * @param here   whether its matches are still this instance's to push: its pushes still queued are withdrawn (handed
     *               back unsent) once they are not
     * @return false when it stopped there, its matches left to the instance that owns them now
     */
    private boolean run(Partner partner, Recovery recovery, Callable<OptionalLong> bound, BooleanSupplier here) {
        Semaphore window = new Semaphore(this.window);
        Semaphore bytes = new Semaphore(bytesAhead);
        AtomicInteger handedBack = new AtomicInteger();
        boolean placed = false;
        try {
            running.acquire();
            placed = true;
            recovery.running();
            for (RetainedMessages.Selection asked : recovery.selections()) {
                try (KeyHold hold = deliveries().hold(partner.name, asked.matchId())) {
                    // read once held: what is accepted from now on is queued behind the hold
                    OptionalLong upTo = bound.call();
                    if (upTo.isEmpty()) {
                        // not ended here: the instance that owns its partition now pushes it and reports its end
                        return false;
                    }
                    RetainedMessages.Selection selection = asked.upTo(upTo.getAsLong());
                    long from = 0;
                    for (List<RetainedMessages.Retained> page = store.page(selection, from, bytesAhead); !page.isEmpty();
                         page = store.page(selection, from, bytesAhead)) {
                        for (RetainedMessages.Retained message : page) {
                            // a body larger than all that may be in delivery goes alone
                            int weight = Math.min(message.body().length(), bytesAhead);
                            window.acquire();
                            bytes.acquire(weight);
                            push(partner, recovery, hold, message, here, () -> {
                                bytes.release(weight);
                                window.release();
                            }, handedBack);
                            from = message.seq();
                        }
                    }
                }
            }
            window.acquire(this.window);
            bytes.acquire(bytesAhead);
            if (!here.getAsBoolean()) {
                // what was withdrawn is the new owner's to push, and its end to report
                return false;
            }
            recovery.end(handedBack.get() == 0 ? null : handedBack.get() + " pushes were handed back (the service is stopping?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            recovery.end("interrupted: the service is stopping");
        } catch (Exception e) {
            LOG.warn("Recovery {} of partner {} failed: {}", recovery.requestId(), partner.label(), e.getMessage());
            recovery.end("the retained messages could not be read");
        } finally {
            if (placed) {
                running.release();
            }
        }
        LOG.info("Recovery {} of partner {}: {}", recovery.requestId(), partner.label(), recovery.status());
        return true;
    }

    private void push(Partner partner, Recovery recovery, KeyHold hold, RetainedMessages.Retained message,
                      BooleanSupplier here, Runnable done, AtomicInteger handedBack) {
        Exchange exchange = new DefaultExchange(context, ExchangePattern.InOut);
        // a retained snapshot supersedes the odds of its match queued before it, as it did when it was first pushed
        exchange.getMessage().setBody(new Push(message.messageId(), (String) hold.key(), message.type(), message.body(),
                message.body(), Instant.now(), message.snapshot() ? "snapshot" : null));
        exchange.getMessage().setHeader(KeyedQueueConstants.BEFORE, hold);
        exchange.setVariable(PartnerDeliveries.PARTNER, partner.name);
        exchange.setVariable(PartnerPushes.RECOVERED, true);
        SourceHandover.attach(exchange, new SourceHandover() {
            @Override
            public boolean isWithdrawn() {
                return !here.getAsBoolean();
            }

            @Override
            public void acknowledge() {
                // counted by the recovery as it ends
            }

            @Override
            public void handBack(String why) {
                // counted by the recovery as it ends
            }
        });
        deliveries().process(exchange, doneSync -> {
            PushOutcome outcome = PushOutcome.of(exchange);
            if (outcome != null && outcome.isDelivered()) {
                recovery.delivered();
                // looked up each time: few, and the registry may come after this bean
                Counter.builder("liveodds.recovered.messages").tags(partner.meters.tags())
                        .description("messages delivered again by a recovery the partner asked for")
                        .register(partner.meters.registry()).increment();
            } else if (outcome != null && outcome.isRefused()) {
                recovery.refused();
            } else if (outcome != null && "superseded".equals(outcome.outcome())) {
                recovery.superseded();
            } else if (exchange.getException() != null || outcome != null) {
                // handed back or failed: not delivered, and not in the dead letters either
                handedBack.incrementAndGet();
            }
            done.run();
        });
    }

    private PartnerDeliveries deliveries() {
        PartnerDeliveries processor = deliveries;
        if (processor == null) {
            deliveries = processor = context.getRegistry().lookupByNameAndType("liveoddsDeliveries", PartnerDeliveries.class);
        }
        return processor;
    }

    public void stop() {
        partners.values().forEach(p -> {
            ExecutorService runner = p.runner;
            if (runner != null) {
                context.getExecutorServiceManager().shutdownNow(runner);
            }
        });
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /** A partner's recoveries: its runner, the ones it asked for lately, and when (for the limit). */
    private static final class Partner {
        private final String name;
        private final String id;
        private final Booking booking;
        private final Meters meters;
        private ExecutorService runner;
        private final Map<String, Recovery> recoveries = new ConcurrentHashMap<>();
        private final Deque<Recovery> order = new ArrayDeque<>();
        private final Deque<Instant> admitted = new ArrayDeque<>();

        Partner(String name, String id, Booking booking, Meters meters) {
            this.name = name;
            this.id = id;
            this.booking = booking;
            this.meters = meters;
        }

        /** Its recoveries' one thread, made at the first one. */
        synchronized ExecutorService runner(CamelContext context) {
            if (runner == null) {
                runner = context.getExecutorServiceManager().newSingleThreadExecutor(this,
                        "liveodds-recovery" + (name.isEmpty() ? "" : "-" + name));
            }
            return runner;
        }

        String label() {
            return name.isEmpty() ? id : name;
        }

        /** Takes the recovery in, or refuses it: 409 for a request id in use, 429 past the limit. */
        synchronized void admit(Recovery recovery, Instant now, int maxRequests) {
            if (recoveries.containsKey(recovery.requestId())) {
                throw new HttpProblem(409, "conflict", "this request_id is in use: ask GET .../recovery/{request_id}");
            }
            checkLimit(now, maxRequests);
            admitted.addLast(now);
            recoveries.put(recovery.requestId(), recovery);
            order.addLast(recovery);
            if (order.size() > KEPT) {
                recoveries.remove(order.removeFirst().requestId());
            }
        }

        /** A request learnt from another instance: remembered like one admitted here, counted at its time. */
        synchronized void remember(Recovery recovery) {
            if (recoveries.putIfAbsent(recovery.requestId(), recovery) != null) {
                return;
            }
            // reports come a little late: kept in time order for the limit
            List<Instant> later = new ArrayList<>();
            while (!admitted.isEmpty() && admitted.peekLast().isAfter(recovery.askedAt())) {
                later.add(0, admitted.removeLast());
            }
            admitted.addLast(recovery.askedAt());
            admitted.addAll(later);
            order.addLast(recovery);
            if (order.size() > KEPT) {
                recoveries.remove(order.removeFirst().requestId());
            }
        }

        /** Takes back a request admitted here that could not be handed on. */
        synchronized void forget(Recovery recovery) {
            recoveries.remove(recovery.requestId(), recovery);
            order.remove(recovery);
            admitted.removeLastOccurrence(recovery.askedAt());
        }

        /** 429 with the seconds until the oldest recovery of the last 10 minutes leaves the window. */
        synchronized void checkLimit(Instant now, int maxRequests) {
            while (!admitted.isEmpty() && !admitted.peekFirst().isAfter(now.minus(LIMIT_WINDOW))) {
                admitted.removeFirst();
            }
            if (admitted.size() >= maxRequests) {
                long wait = Duration.between(now, admitted.peekFirst().plus(LIMIT_WINDOW)).toSeconds() + 1;
                throw new HttpProblem(429, "too_many_requests", "at most " + maxRequests
                        + " recoveries in 10 minutes (liveodds.recovery.max-requests)", wait);
            }
        }
    }
}
