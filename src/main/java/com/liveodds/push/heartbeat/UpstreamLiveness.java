package com.liveodds.push.heartbeat;

import java.time.Duration;


/**
 * Whether the upstream feed is speaking: any message, valid or not, {@code alive} included, counts. Heartbeats
 * stop while it is silent, so they never tell the partner the feed is alive when it is not.
 */
public class UpstreamLiveness {

    private volatile long maxSilenceNanos = Duration.ofSeconds(30).toNanos();
    // start-up counts as heard: the feed gets one full window to speak before it is reported silent
    private volatile long lastHeardNanos = System.nanoTime();

    public UpstreamLiveness() {
    }

    public UpstreamLiveness(Duration maxSilence) {
        this.maxSilenceNanos = maxSilence.toNanos();
    }

    /** @param maxSilence {@code 30s} by default; {@code 0} turns the check off */
    public void setMaxSilence(Duration maxSilence) {
        this.maxSilenceNanos = maxSilence.toNanos();
    }

    public void heard() {
        lastHeardNanos = System.nanoTime();
    }

    public boolean isSpeaking() {
        return maxSilenceNanos == 0 || System.nanoTime() - lastHeardNanos < maxSilenceNanos;
    }

    public Duration silentFor() {
        return Duration.ofNanos(System.nanoTime() - lastHeardNanos);
    }

    public Duration maxSilence() {
        return Duration.ofNanos(maxSilenceNanos);
    }
}
