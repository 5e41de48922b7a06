package com.liveodds.push.delivery;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.partner.Booking;
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
    private volatile Booking booking = Booking.ALL;

    public Heartbeats(LiveMatches liveMatches, UpstreamLiveness upstream) {
        this.liveMatches = liveMatches;
        this.upstream = upstream;
    }

    /** The partner's booking: a match unbooked gets no more heartbeats (contract 16). */
    public void setBooking(Booking booking) {
        this.booking = booking;
    }

    public List<Push> due() {
        if (!upstream.isSpeaking()) {
            return List.of();
        }
        Timer late = lateness();
        List<String> due = liveMatches.claimDueHeartbeats(nanos -> late.record(Math.max(0, nanos), TimeUnit.NANOSECONDS));
        List<Push> heartbeats = new ArrayList<>(due.size());
        for (String matchId : due) {
            if (booking.isBooked(matchId)) {
                heartbeats.add(heartbeat(matchId));
            } else {
                // nothing waits for it (it was due): this partner is done with the match
                liveMatches.heartbeatFinished(matchId);
                liveMatches.forget(matchId);
            }
        }
        return heartbeats;
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
                    .tags(Meters.orOf(meters, camelContext).tags())
                    .publishPercentileHistogram().register(Meters.orOf(meters, camelContext).registry());
        }
        return timer;
    }

    /** The meter registry of the bundle ({@code liveoddsMeters}, its partner's view). */
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
