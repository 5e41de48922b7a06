package com.liveodds.push.heartbeat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.liveodds.push.settings.Durations;
import com.liveodds.push.status.MatchStatus;
import com.liveodds.push.status.MatchStatuses;

/**
 * The matches this instance pushes to, and for each: messages not yet finished, when the last push went out, when
 * upstream last spoke of it. A match is live from its first delivered message until {@code liveFor} passes with no
 * upstream message for it. A heartbeat starts only when the match has nothing waiting or in retry, and a push
 * waits for a heartbeat already on the wire, so the two never cross.
 */
public class LiveMatches implements MatchStatuses {

    private volatile long intervalNanos = Duration.ofSeconds(5).toNanos();
    private volatile long liveForNanos = Duration.ofMinutes(30).toNanos();
    private volatile long heartbeatWaitNanos = Duration.ofSeconds(11).toNanos();
    private final Map<String, MatchState> matches = new ConcurrentHashMap<>();

    public LiveMatches() {
    }

    public LiveMatches(Duration heartbeatInterval, Duration liveFor) {
        this.intervalNanos = heartbeatInterval.toNanos();
        this.liveForNanos = liveFor.toNanos();
    }

    public void setHeartbeatInterval(String interval) {
        this.intervalNanos = Durations.parse(interval).toNanos();
    }

    public void setLiveFor(String liveFor) {
        this.liveForNanos = Durations.parse(liveFor).toNanos();
    }

    /** The time-out of one heartbeat attempt: a push never waits longer than that (plus a second) for one. */
    public void setHeartbeatTimeout(String timeout) {
        this.heartbeatWaitNanos = Durations.parse(timeout).plusSeconds(1).toNanos();
    }

    /** An upstream message for the match is on its way to a delivery lane. */
    public void enqueued(String matchId) {
        MatchState state = matches.computeIfAbsent(matchId, id -> new MatchState());
        synchronized (state) {
            state.pending++;
            state.lastUpstreamNanos = System.nanoTime();
        }
    }

    /**
     * Before the first attempt of a push: let a heartbeat already sent for the match arrive first. The wait is
     * bounded (a heartbeat is one HTTP attempt with its own time-out), so a lost release cannot stall the lane.
     */
    public void awaitHeartbeat(String matchId) throws InterruptedException {
        MatchState state = matches.get(matchId);
        if (state == null) {
            return;
        }
        long deadline = System.nanoTime() + heartbeatWaitNanos;
        synchronized (state) {
            long left;
            while (state.heartbeatInFlight && (left = deadline - System.nanoTime()) > 0) {
                state.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** A push attempt for the match goes out now: the next heartbeat is due one interval later. */
    public void pushing(String matchId) {
        MatchState state = matches.get(matchId);
        if (state != null) {
            synchronized (state) {
                state.lastPushNanos = System.nanoTime();
                state.lastPushAt = Instant.now();
                state.attempts++;
            }
        }
    }

    /** The push is done with: delivered, dead-lettered, or given back to its source (delivered null or false). */
    public void finished(String matchId, Boolean delivered) {
        // a match forgotten meanwhile (its Kafka partition moved away) is not brought back to life here
        MatchState state = matches.get(matchId);
        if (state == null) {
            return;
        }
        synchronized (state) {
            state.pending = Math.max(0, state.pending - 1);
            state.live |= Boolean.TRUE.equals(delivered);
            state.attempts = 0;
        }
    }

    /**
     * Claims the heartbeats that are due now: live, idle matches whose last push is at least one interval old.
     * Each claimed match must be released with {@link #heartbeatFinished(String)}. Forgets matches upstream has not
     * spoken of for the live period.
     */
    public List<String> claimDueHeartbeats() {
        long now = System.nanoTime();
        List<String> due = new ArrayList<>();
        Iterator<Map.Entry<String, MatchState>> it = matches.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, MatchState> entry = it.next();
            MatchState state = entry.getValue();
            synchronized (state) {
                if (state.pending == 0 && !state.heartbeatInFlight && now - state.lastUpstreamNanos >= liveForNanos) {
                    it.remove();
                    continue;
                }
                if (state.live && state.pending == 0 && !state.heartbeatInFlight && now - state.lastPushNanos >= intervalNanos) {
                    state.heartbeatInFlight = true;
                    state.lastPushNanos = now;
                    state.lastPushAt = Instant.now();
                    due.add(entry.getKey());
                }
            }
        }
        return due;
    }

    public void heartbeatFinished(String matchId) {
        MatchState state = matches.get(matchId);
        if (state == null) {
            return;
        }
        synchronized (state) {
            state.heartbeatInFlight = false;
            state.notifyAll();
        }
    }

    /** Stops heartbeats for matches whose messages this instance no longer owns (a Kafka partition moved away). */
    public void forget(String matchId) {
        matches.remove(matchId);
    }

    /**
     * Marks a match live without a push, for an instance taking over matches another instance delivered. It stays
     * live for the live period from {@code lastHeard}, the time of its newest upstream message, not from the take-over.
     */
    public void adopt(String matchId, Instant lastHeard) {
        long heardNanos = System.nanoTime() - Math.max(0, Duration.between(lastHeard, Instant.now()).toNanos());
        MatchState state = matches.computeIfAbsent(matchId, id -> {
            MatchState adopted = new MatchState();
            adopted.lastPushNanos -= intervalNanos;
            adopted.lastUpstreamNanos = heardNanos;
            return adopted;
        });
        synchronized (state) {
            state.live = true;
            state.lastUpstreamNanos = Math.max(state.lastUpstreamNanos, heardNanos);
        }
    }
    public boolean isLive(String matchId) {
        MatchState state = matches.get(matchId);
        return state != null && state.live;
    }

    /**
     * For the status page until the delivery core reports it: live matches and matches with messages waiting. A match
     * whose push is on its second attempt or later counts as in retry; the last answer is not known here.
     */
    @Override
    public List<MatchStatus> matches() {
        long now = System.nanoTime();
        List<MatchStatus> statuses = new ArrayList<>();
        matches.forEach((matchId, state) -> {
            synchronized (state) {
                if (state.live || state.pending > 0) {
                    Duration nextHeartbeat = state.live && state.pending == 0
                            ? Duration.ofNanos(Math.max(0, intervalNanos - (now - state.lastPushNanos))) : null;
                    statuses.add(new MatchStatus(matchId, state.pending, state.attempts > 1, state.attempts, state.lastPushAt,
                            null, null, nextHeartbeat));
                }
            }
        });
        return statuses;
    }

    private static final class MatchState {
        int pending;
        boolean live;
        boolean heartbeatInFlight;
        int attempts;
        Instant lastPushAt;
        long lastPushNanos = System.nanoTime();
        long lastUpstreamNanos = System.nanoTime();
    }
}
