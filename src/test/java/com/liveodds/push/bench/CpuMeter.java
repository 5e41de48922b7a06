package com.liveodds.push.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * CPU time (user + sys) of one process per message it delivered (per push, in the fan-out: the deliveries of every
 * receiver counted), over the second half of the run (from the middle arrival to the last, as
 * {@link Arrivals#warmThroughput()}): the JVM's start-up, most of its JIT compilation and the idle wait after the run
 * do not count.
 * The process's CPU (and its child processes') is read from {@code /proc/<pid>/stat} (through {@link ProcessHandle.Info#totalCpuDuration()}).
 */
final class CpuMeter implements AutoCloseable {

    private final ProcessHandle process;
    private final List<Arrivals> receivers;
    private final int expected;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-cpu-meter");
        t.setDaemon(true);
        return t;
    });
    private long firstCpu = -1;
    private int firstDelivered;
    private long lastCpu;
    private int lastDelivered;

    CpuMeter(ProcessHandle process, List<Arrivals> receivers) {
        this.process = process;
        this.receivers = receivers;
        this.expected = receivers.stream().mapToInt(a -> a.load.size).sum();
        sampler.scheduleAtFixedRate(this::sample, 0, 20, TimeUnit.MILLISECONDS);
    }

    private synchronized void sample() {
        int delivered = receivers.stream().mapToInt(Arrivals::delivered).sum();
        // with the processes it started: the default launch runs the service in a child JVM
        long cpu = Stream.concat(Stream.of(process), process.descendants())
                .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum();
        if (cpu == 0 || delivered < expected / 2) {
            return;
        }
        if (firstCpu < 0) {
            firstCpu = cpu;
            firstDelivered = delivered;
        }
        if (delivered > lastDelivered) {
            lastCpu = cpu;
            lastDelivered = delivered;
        }
    }

    /** µs of CPU per delivered message between the middle and the last arrival; NaN when too few arrived to tell. */
    synchronized double microsPerMessage() {
        int messages = lastDelivered - firstDelivered;
        return firstCpu < 0 || messages < 100 ? Double.NaN : (lastCpu - firstCpu) / 1e3 / messages;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        sample();
    }
}
