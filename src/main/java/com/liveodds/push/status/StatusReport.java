package com.liveodds.push.status;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.heartbeat.MatchStatus;
import com.liveodds.push.heartbeat.MatchStatuses;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.PartnerState;
import com.liveodds.push.partner.PartnerStatus;
import com.liveodds.push.settings.Timestamps;
import com.liveodds.push.source.SourceHealthCheck;
import com.liveodds.push.token.PartnerTokenProvider;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.health.HealthCheck;

/**
 * {@code GET /admin/status} (contract section 13): the whole service on one JSON page. Its sources are found by
 * type in the Camel registry, so their bean names may change, and a part whose source is not there (no delivery
 * core or partner connection registered) is answered as unknown rather than failing the page. Matches come stuck
 * first: in retry, then the biggest backlog, then the oldest last push.
 */
public class StatusReport implements CamelContextAware {

    /** Dead letters listed: the newest ones. */
    static final int NEWEST_DEAD_LETTERS = 50;
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

    private final ObjectMapper mapper = new ObjectMapper();
    private CamelContext camelContext;
    private volatile Meters meters;

    /** The status as JSON text. */
    public String report() {
        Instant now = Instant.now();
        ObjectNode status = mapper.createObjectNode();
        status.put("time", Timestamps.format(now));
        status.set("upstream", upstream(now));
        status.set("source", source());
        status.set("partner", partner(now));
        status.set("matches", matches(now));
        status.set("dead_letters", deadLetters());
        status.set("totals", totals());
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

    private ObjectNode partner(Instant now) {
        ObjectNode partner = mapper.createObjectNode();
        Optional<PartnerStatus> status = find(PartnerState.class).map(PartnerState::partner);
        partner.put("state", status.map(s -> s.up() ? "UP" : "DOWN").orElse("UNKNOWN"));
        partner.put("last_success", status.map(PartnerStatus::lastSuccess).map(Timestamps::format).orElse(null));
        partner.put("last_failure", status.map(PartnerStatus::lastFailure).map(Timestamps::format).orElse(null));
        partner.put("last_error", status.map(PartnerStatus::lastError).orElse(null));
        Instant expiresAt = find(PartnerTokenProvider.class).map(PartnerTokenProvider::expiresAt).orElse(null);
        if (expiresAt == null) {
            partner.putNull("token_expires_in_s");
        } else {
            partner.put("token_expires_in_s", seconds(Duration.between(now, expiresAt)));
        }
        return partner;
    }

    private ArrayNode matches(Instant now) {
        ArrayNode matches = mapper.createArrayNode();
        List<MatchStatus> statuses = find(MatchStatuses.class).map(MatchStatuses::matches).orElse(List.of());
        statuses.stream().sorted(STUCK_FIRST).forEach(m -> {
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
        });
        return matches;
    }

    private ObjectNode deadLetters() {
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
        }
        return deadLetters;
    }

    private ObjectNode totals() {
        ObjectNode totals = mapper.createObjectNode();
        MeterRegistry registry = Meters.orOf(meters, camelContext).registry();
        for (Map.Entry<String, String> total : TOTALS) {
            double count = registry == null ? 0
                    : registry.find(total.getValue()).counters().stream().mapToDouble(Counter::count).sum();
            totals.put(total.getKey(), (long) count);
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
