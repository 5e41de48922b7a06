package com.liveodds.push.delivery;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.settings.Timestamps;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;

/**
 * Builds the heartbeats due on each tick of the heartbeat timer, while the upstream feed is speaking, and measures
 * how late each one is beyond the interval ({@code liveodds_heartbeat_lateness_seconds}).
 */
public class Heartbeats implements CamelContextAware {

    private final LiveMatches liveMatches;
    private final UpstreamLiveness upstream;
    private final ObjectMapper mapper = new ObjectMapper();
    private CamelContext camelContext;
    private volatile Meters meters;
    private volatile Timer lateness;

    public Heartbeats(LiveMatches liveMatches, UpstreamLiveness upstream) {
        this.liveMatches = liveMatches;
        this.upstream = upstream;
    }

    public List<Push> due() {
        if (!upstream.isSpeaking()) {
            return List.of();
        }
        Timer late = lateness();
        return liveMatches.claimDueHeartbeats(nanos -> late.record(Math.max(0, nanos), TimeUnit.NANOSECONDS))
                .stream().map(this::heartbeat).toList();
    }

    Push heartbeat(String matchId) {
        Instant now = Instant.now();
        String messageId = UUID.randomUUID().toString();
        ObjectNode body = mapper.createObjectNode();
        body.put("message_id", messageId);
        body.put("message_type", Push.HEARTBEAT);
        body.put("timestamp", Timestamps.format(now));
        body.putObject("fight_metadata").put("fight_id_sr", matchId);
        return new Push(messageId, matchId, Push.HEARTBEAT, body.toString(), null, now);
    }

    private Timer lateness() {
        Timer timer = lateness;
        if (timer == null) {
            lateness = timer = Timer.builder("liveodds.heartbeat.lateness")
                    .description("how late a heartbeat is beyond liveodds.heartbeat.interval")
                    .publishPercentileHistogram().register(Meters.orOf(meters, camelContext).registry());
        }
        return timer;
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
