package com.liveodds.push.auth;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What one partner may ask of the partner paths at once and per minute (contract section 22): at most
 * {@code maxConcurrent} requests being served and at most {@code maxPerMinute} admitted in any 60 s, counted per
 * partner so that one partner's flood never spends another's share. The minute is a sliding window (the times of the
 * last {@code maxPerMinute} admissions), so no burst at a window's edge doubles the rate.
 */
public class PartnerAllowance {

    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    private final int maxConcurrent;
    private final int maxPerMinute;
    private final LongSupplier clock;
    private final Map<String, Share> shares = new ConcurrentHashMap<>();

    public PartnerAllowance(int maxConcurrent, int maxPerMinute) {
        this(maxConcurrent, maxPerMinute, System::nanoTime);
    }

    PartnerAllowance(int maxConcurrent, int maxPerMinute, LongSupplier clock) {
        this.maxConcurrent = maxConcurrent;
        this.maxPerMinute = maxPerMinute;
        this.clock = clock;
    }

    /**
     * Takes one request of the partner if its share allows it.
     *
     * @return 0 when admitted (then {@link #release} once it is answered), else the whole seconds to wait before asking
     *         again (for {@code Retry-After})
     */
    public long admit(String partner) {
        return shares.computeIfAbsent(partner, p -> new Share(maxPerMinute)).admit(clock.getAsLong());
    }

    /** The end of an admitted request: its place among the concurrent ones is free again. */
    public void release(String partner) {
        Share share = shares.get(partner);
        if (share != null) {
            share.release();
        }
    }

    /** One partner's requests in flight and the times of its last admissions (a ring, oldest at {@code next}). */
    private final class Share {
        private final long[] admitted;
        private int next;
        private int filled;
        private int inFlight;

        Share(int perMinute) {
            admitted = new long[perMinute];
        }

        synchronized long admit(long now) {
            if (inFlight >= maxConcurrent) {
                return 1;
            }
            if (filled == admitted.length) {
                long freeIn = admitted[next] + MINUTE - now;
                if (freeIn > 0) {
                    return Math.max(1, (freeIn + 999_999_999L) / 1_000_000_000L);
                }
            } else {
                filled++;
            }
            admitted[next] = now;
            next = (next + 1) % admitted.length;
            inFlight++;
            return 0;
        }

        synchronized void release() {
            inFlight = Math.max(0, inFlight - 1);
        }
    }
}
