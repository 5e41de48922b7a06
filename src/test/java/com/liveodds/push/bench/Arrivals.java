package com.liveodds.push.bench;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * What the partner received during one run: per match the arrival order of the accepted pushes, the time each
 * message was first accepted, repeats, refused attempts, and anything that breaks the contract (a push on the wrong
 * match, an Idempotency-Key that is not the message_id).
 */
final class Arrivals {

    private static final int PROBLEMS_KEPT = 20;

    final Load load;
    private final AtomicIntegerArray accepted;
    private final long[] firstAcceptedAt;
    private final AtomicInteger delivered = new AtomicInteger();
    private final List<List<Integer>> orderByMatch = new ArrayList<>();
    private final AtomicIntegerArray inFlight;
    private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    private final AtomicInteger problemCount = new AtomicInteger();
    final LongAdder repeats = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder heartbeats = new LongAdder();
    final LongAdder strays = new LongAdder();
    final LongAdder overlapping = new LongAdder();

    Arrivals(Load load) {
        this.load = load;
        this.accepted = new AtomicIntegerArray(load.size);
        this.firstAcceptedAt = new long[load.size];
        this.inFlight = new AtomicIntegerArray(load.matches);
        for (int m = 0; m < load.matches; m++) {
            orderByMatch.add(new ArrayList<>());
        }
    }

    /** A push of this load arrived (whole body read); returns the message index, or -1 when it is not one of ours. */
    int arrived(String matchId, String idempotencyKey, String messageId, long at, boolean accept) {
        int i = load.indexOf(idempotencyKey);
        if (i < 0) {
            strays.increment();
            return -1;
        }
        int m = load.matchOf(i);
        if (!idempotencyKey.equals(messageId)) {
            problem("message " + load.id(i) + " carried Idempotency-Key " + idempotencyKey + " but message_id " + messageId);
        }
        if (!load.matchId(m).equals(matchId)) {
            problem("message " + load.id(i) + " pushed to " + matchId + ", expected " + load.matchId(m));
        }
        if (inFlight.incrementAndGet(m) > 1) {
            overlapping.increment();
        }
        if (!accept) {
            refused.increment();
            return i;
        }
        if (accepted.incrementAndGet(i) == 1) {
            firstAcceptedAt[i] = at;
            delivered.incrementAndGet();
        } else {
            repeats.increment();
        }
        List<Integer> order = orderByMatch.get(m);
        synchronized (order) {
            order.add(i);
        }
        return i;
    }

    /** The partner answered message i. */
    void answered(int i) {
        inFlight.decrementAndGet(load.matchOf(i));
    }

    int delivered() {
        return delivered.get();
    }

    private void problem(String text) {
        if (problemCount.incrementAndGet() <= PROBLEMS_KEPT) {
            problems.add(text);
        }
    }

    /**
     * Order and loss: each match's messages were first accepted in send order (a repeat of an accepted message is
     * counted, not an error), and every message was accepted or is among the dead letters.
     */
    List<String> verdict(Set<String> deadLettered) {
        List<String> found = new ArrayList<>(problems);
        if (problemCount.get() > PROBLEMS_KEPT) {
            found.add("... and " + (problemCount.get() - PROBLEMS_KEPT) + " more such problems");
        }
        int violations = 0;
        for (int m = 0; m < load.matches; m++) {
            List<Integer> order = orderByMatch.get(m);
            BitSet seen = new BitSet(load.size);
            int newest = -1;
            synchronized (order) {
                for (int i : order) {
                    if (seen.get(i)) {
                        continue;
                    }
                    seen.set(i);
                    if (i < newest) {
                        if (++violations <= PROBLEMS_KEPT) {
                            found.add("order broken at " + load.matchId(m) + ": " + load.id(i) + " arrived after " + load.id(newest));
                        }
                    } else {
                        newest = i;
                    }
                }
            }
        }
        if (violations > PROBLEMS_KEPT) {
            found.add("... " + violations + " order violations in all");
        }
        List<String> lost = new ArrayList<>();
        for (int i = 0; i < load.size; i++) {
            if (accepted.get(i) == 0 && !deadLettered.contains(load.id(i))) {
                lost.add(load.id(i));
            }
        }
        if (!lost.isEmpty()) {
            found.add(lost.size() + " messages neither delivered nor dead-lettered, e.g. " + lost.subList(0, Math.min(5, lost.size())));
        }
        return found;
    }

    /** Added latency of message i in ms (first acceptance minus hand-over), NaN when it was not delivered. */
    double latencyMs(int i) {
        return accepted.get(i) > 0 && load.handedAt[i] != 0 ? (firstAcceptedAt[i] - load.handedAt[i]) / 1e6 : Double.NaN;
    }

    /** Added latencies in ms of the delivered messages that match, sorted. */
    double[] latenciesMs(IntPredicate which) {
        return IntStream.range(0, load.size).filter(which).mapToDouble(this::latencyMs).filter(l -> !Double.isNaN(l))
                .sorted().toArray();
    }

    /** Messages per second from the first to the last first acceptance. */
    double throughput() {
        return throughput(List.of(this), 0);
    }

    /**
     * Messages per second over the second half of the run (from the middle acceptance to the last): the JVM is warm
     * there, its start-up and JIT compilation mostly behind it.
     */
    double warmThroughput() {
        return throughput(List.of(this), 0.5);
    }

    /**
     * Pushes per second of several receivers of the same load together (the fan-out), over the first acceptances
     * after the given share of them (0: the whole run; 0.5: its second half).
     */
    static double throughput(List<Arrivals> receivers, double skipped) {
        long[] times = receivers.stream().flatMapToLong(a -> IntStream.range(0, a.load.size).filter(i -> a.accepted.get(i) > 0)
                .mapToLong(i -> a.firstAcceptedAt[i])).sorted().toArray();
        int from = (int) (times.length * skipped);
        int n = times.length - from;
        return n < 2 || times[times.length - 1] == times[from] ? 0 : (n - 1) / ((times[times.length - 1] - times[from]) / 1e9);
    }

    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(q * sorted.length) - 1))];
    }
}
