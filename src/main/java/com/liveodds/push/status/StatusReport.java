package com.liveodds.push.status;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.delivery.PartnerBeans;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.heartbeat.MatchStatus;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerPauses;
import com.liveodds.push.partner.PartnerStatus;
import com.liveodds.push.recovery.Recoveries;
import com.liveodds.push.settings.Timestamps;
import com.liveodds.push.source.SourceHealthCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.health.HealthCheck;

/**
 * {@code GET /admin/status} (contract section 13): the whole service on one JSON page. A partner's parts are found by
 * their bean names (with the partner's suffix), the others by type, and a part that is not there is answered as
 * unknown rather than failing the page. Matches come stuck first: in retry, then the biggest backlog, then the oldest
 * last push.
 * <p>
 * With several partners ({@code liveodds.partners}, contract 16) the page keeps its shape and adds to it: {@code partner}
 * is the readiness check {@code partner} over them all (DOWN only when every partner is down, the latest success and
 * failure of any, the error prefixed with its partner, the token that expires first); {@code partners} lists each
 * partner (name, id, its connection, booking, live matches, backlog, matches retrying, its totals); each entry of
 * {@code matches} and of {@code dead_letters.newest} names its {@code partner} (null for a rejected message, which is
 * no partner's). {@code recoveries} lists the partners' recent recovery requests (contract 20): request id, partner,
 * state and counts. Each partner (and the single one's {@code partner}) tells whether it is paused (contract 24):
 * {@code paused}, {@code paused_since}, {@code paused_reason}.
 */
public class StatusReport implements CamelContextAware {

    /** Dead letters listed: the newest ones. */
    static final int NEWEST_DEAD_LETTERS = 50;
    /** Recoveries listed (contract 20): the most recent ones, of every partner. */
    static final int RECENT_RECOVERIES = 20;
    static final Comparator<MatchStatus> STUCK_FIRST = Comparator.comparing(MatchStatus::inRetry).reversed()
            .thenComparing(Comparator.comparingInt(MatchStatus::backlog).reversed())
            .thenComparing(MatchStatus::lastPushAt, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(MatchStatus::matchId);
    /** Each total and the counter it reads. */
    private static final List<Map.Entry<String, String>> TOTALS = List.of(
            Map.entry("delivered", "liveodds.pushes.delivered"),
            Map.entry("retried", "liveodds.pushes.retried"),
            Map.entry("dead_lettered", "liveodds.pushes.dead_lettered"),
            Map.entry("superseded", "liveodds.messages.superseded"),
            Map.entry("rejected", "liveodds.messages.rejected"),
            Map.entry("heartbeats", "liveodds.heartbeats.delivered"));
    /** Each total of one partner of {@code liveodds.partners} (a rejected message is no partner's). */
    private static final List<Map.Entry<String, String>> PARTNER_TOTALS = List.of(
            Map.entry("delivered", "liveodds.pushes.delivered"),
            Map.entry("retried", "liveodds.pushes.retried"),
            Map.entry("dead_lettered", "liveodds.pushes.dead_lettered"),
            Map.entry("superseded", "liveodds.messages.superseded"),
            Map.entry("not_booked", "liveodds.messages.not_booked"),
            Map.entry("heartbeats", "liveodds.heartbeats.delivered"));

    private final ObjectMapper mapper = new ObjectMapper();
    private CamelContext camelContext;
    private volatile Meters meters;

    /** The status as JSON text. */
    public String report() {
        Instant now = Instant.now();
        List<String> partners = Partners.names(camelContext);
        boolean several = Partners.isList(partners);
        ObjectNode status = mapper.createObjectNode();
        status.put("time", Timestamps.format(now));
        status.set("upstream", upstream(now));
        status.set("source", source());
        if (several) {
            status.set("partner", allPartners(partners.stream().map(p -> partner(p).put("name", p)).toList()));
            status.set("partners", partners(partners));
        } else {
            // its id names it to POST /admin/partners/{name}/pause (the status page's button)
            status.set("partner", partner("").put("id",
                    camelContext.getPropertiesComponent().resolveProperty("liveodds.partner.id").orElse(null)));
        }
        status.set("matches", matches(partners, several));
        status.set("dead_letters", deadLetters(several));
        status.set("totals", totals(null));
        status.set("recoveries", find(Recoveries.class).map(r -> r.recent(RECENT_RECOVERIES))
                .orElseGet(mapper::createArrayNode));
        return status.toString();
    }

    private ObjectNode upstream(Instant now) {
        ObjectNode upstream = mapper.createObjectNode();
        Optional<UpstreamLiveness> liveness = find(UpstreamLiveness.class);
        if (liveness.isEmpty()) {
            upstream.put("state", "UNKNOWN");
            upstream.putNull("last_heard");
            upstream.putNull("silent_for_s");
            return upstream;
        }
        Duration silent = liveness.get().silentFor();
        upstream.put("state", liveness.get().isSpeaking() ? "UP" : "DOWN");
        upstream.put("last_heard", Timestamps.format(now.minus(silent)));
        upstream.put("silent_for_s", seconds(silent));
        return upstream;
    }

    private ObjectNode source() {
        ObjectNode source = mapper.createObjectNode();
        Optional<SourceHealthCheck> check = find(SourceHealthCheck.class);
        if (check.isEmpty()) {
            source.putNull("kind");
            source.put("state", "UNKNOWN");
            source.putNull("detail");
            return source;
        }
        HealthCheck.Result result = check.get().call();
        Object kind = result.getDetails().get("source");
        source.put("kind", kind == null ? null : kind.toString());
        source.put("state", result.getState().name());
        source.put("detail", result.getMessage().orElse(null));
        return source;
    }

    /** One partner's connection: state, last success, failure and error, token life. */
    private ObjectNode partner(String name) {
        ObjectNode partner = mapper.createObjectNode();
        Optional<PartnerStatus> status = Partners.beans(camelContext, name)
                .map(beans -> beans.health().partner());
        partner.put("state", status.map(s -> s.up() ? "UP" : "DOWN").orElse("UNKNOWN"));
        partner.put("last_success", status.map(PartnerStatus::lastSuccess).map(Timestamps::format).orElse(null));
        partner.put("last_failure", status.map(PartnerStatus::lastFailure).map(Timestamps::format).orElse(null));
        partner.put("last_error", status.map(PartnerStatus::lastError).orElse(null));
        Duration tokenLife = Partners.beans(camelContext, name).map(beans -> beans.tokens().lifeLeft()).orElse(null);
        if (tokenLife == null) {
            partner.putNull("token_expires_in_s");
        } else {
            partner.put("token_expires_in_s", seconds(tokenLife));
        }
        PartnerPauses.Pause pause = find(PartnerPauses.class).map(p -> p.pauseOf(name)).orElse(null);
        partner.put("paused", pause != null);
        partner.put("paused_since", pause == null ? null : Timestamps.format(pause.since()));
        partner.put("paused_reason", pause == null ? null : pause.reason());
        return partner;
    }

    /** The service's side of several partners, in the single partner's shape (see the class comment). */
    private ObjectNode allPartners(List<ObjectNode> each) {
        ObjectNode partner = mapper.createObjectNode();
        boolean allDown = each.stream().allMatch(p -> "DOWN".equals(p.path("state").asText()));
        boolean anyKnown = each.stream().anyMatch(p -> !"UNKNOWN".equals(p.path("state").asText()));
        partner.put("state", !anyKnown ? "UNKNOWN" : allDown ? "DOWN" : "UP");
        Optional<ObjectNode> lastFailed = latest(each, "last_failure");
        partner.put("last_success", latest(each, "last_success").map(p -> p.path("last_success").asText()).orElse(null));
        partner.put("last_failure", lastFailed.map(p -> p.path("last_failure").asText()).orElse(null));
        partner.put("last_error", lastFailed.map(p -> p.path("name").asText() + ": " + p.path("last_error").asText(null))
                .orElse(null));
        OptionalDouble soonest = each.stream().map(p -> p.path("token_expires_in_s")).filter(JsonNode::isNumber)
                .mapToDouble(JsonNode::asDouble).min();
        if (soonest.isPresent()) {
            partner.put("token_expires_in_s", soonest.getAsDouble());
        } else {
            partner.putNull("token_expires_in_s");
        }
        return partner;
    }

    /** The partner whose {@code field} (a timestamp: they sort as text) is the latest. */
    private static Optional<ObjectNode> latest(List<ObjectNode> each, String field) {
        return each.stream().filter(p -> p.path(field).isTextual()).max(Comparator.comparing(p -> p.path(field).asText()));
    }

    /** Each partner of {@code liveodds.partners}: its connection, booking, matches in numbers, and totals. */
    private ArrayNode partners(List<String> names) {
        ArrayNode partners = mapper.createArrayNode();
        for (String name : names) {
            ObjectNode partner = partners.addObject();
            partner.put("name", name);
            partner.put("id", Partners.setting(camelContext, name, "id"));
            partner.setAll(partner(name));
            String booking = Partners.setting(camelContext, name, "booking");
            partner.put("booking", booking == null || booking.isBlank() ? "all" : booking.trim());
            Optional<LiveMatches> live = Partners.beans(camelContext, name).map(PartnerBeans::liveMatches);
            partner.put("live_matches", live.map(LiveMatches::liveCount).orElse(0));
            partner.put("backlog", live.map(LiveMatches::backlog).orElse(0));
            partner.put("matches_retrying", live.map(LiveMatches::retryingCount).orElse(0));
            partner.set("totals", totals(name));
        }
        return partners;
    }

    /** Every partner's live matches, stuck first; with several partners each names its partner. */
    private ArrayNode matches(List<String> partners, boolean several) {
        List<Map.Entry<String, MatchStatus>> statuses = new ArrayList<>();
        for (String partner : partners) {
            Partners.beans(camelContext, partner)
                    .ifPresent(beans -> beans.liveMatches().matches().forEach(m -> statuses.add(Map.entry(partner, m))));
        }
        statuses.sort(Map.Entry.<String, MatchStatus>comparingByValue(STUCK_FIRST).thenComparing(Map.Entry.comparingByKey()));
        ArrayNode matches = mapper.createArrayNode();
        for (Map.Entry<String, MatchStatus> entry : statuses) {
            MatchStatus m = entry.getValue();
            ObjectNode match = matches.addObject();
            match.put("match_id", m.matchId());
            match.put("backlog", m.backlog());
            match.put("in_retry", m.inRetry());
            match.put("attempts", m.attempts());
            match.put("last_push_at", m.lastPushAt() == null ? null : Timestamps.format(m.lastPushAt()));
            match.put("last_status", m.lastStatus());
            match.put("last_error", m.lastError());
            if (m.nextHeartbeatIn() == null) {
                match.putNull("next_heartbeat_in_s");
            } else {
                match.put("next_heartbeat_in_s", seconds(m.nextHeartbeatIn()));
            }
            if (several) {
                match.put("partner", entry.getKey());
            }
        }
        return matches;
    }

    /** The store's count and newest letters; with several partners each names its partner. */
    private ObjectNode deadLetters(boolean several) {
        ObjectNode deadLetters = mapper.createObjectNode();
        Optional<DeadLetterStore> store = find(DeadLetterStore.class);
        List<DeadLetterStore.Summary> newest = store.map(s -> s.newest(NEWEST_DEAD_LETTERS)).orElse(List.of());
        deadLetters.put("count", store.map(DeadLetterStore::count).orElse(0L));
        ArrayNode list = deadLetters.putArray("newest");
        for (DeadLetterStore.Summary letter : newest) {
            ObjectNode entry = list.addObject();
            entry.put("id", letter.id());
            entry.put("match_id", letter.matchId());
            entry.put("type", letter.type());
            entry.put("reason", letter.reason());
            entry.put("at", letter.at());
            if (several) {
                entry.put("partner", letter.partner());
            }
        }
        return deadLetters;
    }

    /** The service's totals (partner null: every partner's counters summed), or one partner's. */
    private ObjectNode totals(String partner) {
        ObjectNode totals = mapper.createObjectNode();
        MeterRegistry registry = Meters.orOf(meters, camelContext).registry();
        for (Map.Entry<String, String> total : partner == null ? TOTALS : PARTNER_TOTALS) {
            Search search = registry.find(total.getValue());
            if (partner != null) {
                search = search.tag("partner", partner);
            }
            totals.put(total.getKey(), (long) search.counters().stream().mapToDouble(Counter::count).sum());
        }
        return totals;
    }

    private <T> Optional<T> find(Class<T> type) {
        return camelContext.getRegistry().findByType(type).stream().findFirst();
    }

    /** Seconds with millisecond precision. */
    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    /** The meter registry of the bundle (beans.yaml: {@code #bean:liveoddsMeters}). */
    public void setMeters(Meters meters) {
        this.meters = meters;
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
