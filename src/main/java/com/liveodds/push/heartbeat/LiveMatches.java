package com.liveodds.push.heartbeat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;


/**
 * The matches this instance pushes to, and for each: messages not yet finished, when the last push went out, when
 * upstream last spoke of it. A match is live from its first delivered message until {@code liveFor} passes with no
 * upstream message for it. A heartbeat starts only when the match has nothing waiting or in retry, and a push
 * waits for a heartbeat already on the wire, so the two never cross.
 */
public class LiveMatches implements MatchStatuses {

    private volatile long intervalNanos = Duration.ofSeconds(5).toNanos();
    private volatile long liveForNanos = Duration.ofMinutes(30).toNanos();
    private final Map<String, MatchState> matches = new ConcurrentHashMap<>();
    private final AtomicInteger backlog = new AtomicInteger();

    public LiveMatches() {
    }

    public LiveMatches(Duration heartbeatInterval, Duration liveFor) {
        this.intervalNanos = heartbeatInterval.toNanos();
        this.liveForNanos = liveFor.toNanos();
    }

    public void setHeartbeatInterval(Duration interval) {
        this.intervalNanos = interval.toNanos();
    }

    public void setLiveFor(Duration liveFor) {
        this.liveForNanos = liveFor.toNanos();
    }

    /** An upstream message for the match is on its way to delivery. */
    public void enqueued(String matchId) {
        MatchState state = matches.computeIfAbsent(matchId, id -> new MatchState());
        synchronized (state) {
            state.pending++;
            state.lastUpstreamNanos = System.nanoTime();
        }
        backlog.incrementAndGet();
    }

    /** A push attempt for the match goes out now: the next heartbeat is due one interval later. */
    public void pushing(String matchId) {
        MatchState state = matches.get(matchId);
        if (state != null) {
            synchronized (state) {
                state.lastPushNanos = System.nanoTime();
                state.lastPushAt = Instant.now();
            }
        }
    }

    /** What the last attempt for the match got, for the status page. */
    public void attempted(String matchId, int attempts, int status, String error, boolean failed) {
        MatchState state = matches.get(matchId);
        if (state != null) {
            synchronized (state) {
                state.attempts = attempts;
                state.lastStatus = status;
                state.lastError = error;
                state.inRetry = failed;
            }
        }
    }

    /** The push is done with: delivered, dead-lettered, or given back to its source (delivered null or false). */
    public void finished(String matchId, boolean delivered) {
        // a match forgotten meanwhile (its Kafka partition moved away) is not brought back to life here
        MatchState state = matches.get(matchId);
        if (state == null) {
            return;
        }
        synchronized (state) {
            if (state.pending > 0) {
                state.pending--;
                backlog.decrementAndGet();
            }
            state.live |= Boolean.TRUE.equals(delivered);
            if (state.pending == 0) {
                state.inRetry = false;
                state.attempts = 0;
            }
        }
    }

    /**
     * Claims the heartbeats that are due now: live, idle matches whose last push is at least one interval old.
     * Each claimed match must be released with {@link #heartbeatFinished(String)}. Forgets matches upstream has not
     * spoken of for the live period.
     */
    public List<String> claimDueHeartbeats() {
        return claimDueHeartbeats(lateNanos -> { });
    }

    /** @param lateness told, for each claimed heartbeat, how many nanoseconds beyond the interval it is */
    public List<String> claimDueHeartbeats(LongConsumer lateness) {
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
                    lateness.accept(now - state.lastPushNanos - intervalNanos);
                    state.lastPushNanos = now;
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
        MatchState state = matches.remove(matchId);
        if (state != null) {
            synchronized (state) {
                backlog.addAndGet(-state.pending);
                state.pending = 0;
            }
        }
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

    /** Messages waiting or in retry, all matches together. */
    public int backlog() {
        return Math.max(0, backlog.get());
    }

    public int liveCount() {
        int live = 0;
        for (MatchState state : matches.values()) {
            if (state.live) {
                live++;
            }
        }
        return live;
    }

    public int retryingCount() {
        int retrying = 0;
        for (MatchState state : matches.values()) {
            if (state.inRetry) {
                retrying++;
            }
        }
        return retrying;
    }

    /** The live matches and those with messages on their way, for the status page. */
    @Override
    public List<MatchStatus> matches() {
        long now = System.nanoTime();
        List<MatchStatus> statuses = new ArrayList<>();
        matches.forEach((matchId, state) -> {
            synchronized (state) {
                if (!state.live && state.pending == 0) {
                    return;
                }
                Duration nextHeartbeat = state.live && state.pending == 0
                        ? Duration.ofNanos(Math.max(0, state.lastPushNanos + intervalNanos - now)) : null;
                statuses.add(new MatchStatus(matchId, state.pending, state.inRetry, state.attempts, state.lastPushAt,
                        state.lastStatus > 0 ? state.lastStatus : null, state.lastError, nextHeartbeat));
            }
        });
        return statuses;
    }

    private static final class MatchState {
        int pending;
        boolean live;
        boolean heartbeatInFlight;
        boolean inRetry;
        int attempts;
        int lastStatus;
        String lastError;
        Instant lastPushAt;
        long lastPushNanos = System.nanoTime();
        long lastUpstreamNanos = System.nanoTime();
    }
}
