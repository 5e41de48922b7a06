package com.liveodds.push.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Of that CPU, {@link #jvmShares()} tells what the JVM's own threads took over the same half: a JIT still compiling
 * there means the figure is not yet steady state.
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
    /**
     * The JVM's own threads' CPU (clock ticks) by thread id, when the measured half began and as last seen since (read
     * every second: the JVM ends idle compiler threads, and what an ended thread took is no longer to be read).
     */
    private Map<Long, JvmThread> firstJvmTicks;
    private final Map<Long, JvmThread> lastJvmTicks = new HashMap<>();
    /** The kernel's share of the process's CPU (stime, clock ticks) when the measured half began and at the last arrival. */
    private long firstSysTicks;
    private long lastSysTicks;
    private int samples;

    CpuMeter(ProcessHandle process, List<Arrivals> receivers) {
        this.process = process;
        this.receivers = receivers;
        this.expected = receivers.stream().mapToInt(a -> a.load.size).sum();
        sampler.scheduleAtFixedRate(this::sample, 0, 20, TimeUnit.MILLISECONDS);
    }

    private synchronized void sample() {
        int delivered = receivers.stream().mapToInt(Arrivals::delivered).sum();
        // with the processes it started: the default launch runs the service in a child JVM
        long cpu = totalCpu();
        if (cpu == 0 || delivered < expected / 2) {
            return;
        }
        if (firstCpu < 0) {
            firstCpu = cpu;
            firstDelivered = delivered;
            firstJvmTicks = jvmThreadTicks();
            firstSysTicks = sysTicks();
        }
        if (samples++ % 50 == 0) {
            lastJvmTicks.putAll(jvmThreadTicks());
        }
        if (delivered > lastDelivered) {
            lastCpu = cpu;
            lastDelivered = delivered;
            lastSysTicks = sysTicks();
        }
    }

    /** µs of CPU per delivered message between the middle and the last arrival; NaN when too few arrived to tell. */
    synchronized double microsPerMessage() {
        int messages = lastDelivered - firstDelivered;
        return firstCpu < 0 || messages < 100 ? Double.NaN : (lastCpu - firstCpu) / 1e3 / messages;
    }

    /**
     * The share of the process's CPU since the middle arrival that its JIT compiler threads and its collector (the VM
     * thread, where the serial collector works, and any GC threads) took, as "JIT 12 %, GC 7 %"; empty when the
     * measured half has not begun.
     */
    synchronized String jvmShares() {
        if (firstJvmTicks == null) {
            return "";
        }
        long cpu = totalCpu() - firstCpu;
        lastJvmTicks.putAll(jvmThreadTicks());
        long[] took = new long[2];
        lastJvmTicks.forEach((tid, last) -> {
            JvmThread first = firstJvmTicks.get(tid);
            took[last.jit() ? 0 : 1] += last.ticks() - (first == null ? 0 : first.ticks());
        });
        // clock ticks of /proc/<pid>/task/<tid>/stat: 100 per second (USER_HZ) on Linux
        return cpu <= 0 ? "" : String.format("JIT %.0f %%, GC %.0f %%, kernel %.0f %%", took[0] * 1e9 / 100 / cpu * 100,
                took[1] * 1e9 / 100 / cpu * 100, (lastSysTicks - firstSysTicks) * 1e9 / 100 / (lastCpu - firstCpu) * 100);
    }

    /** The system time (stime, clock ticks) of the process and its children: the kernel's work for them. */
    private long sysTicks() {
        return Stream.concat(Stream.of(process), process.descendants()).mapToLong(p -> {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
                return Long.parseLong(fieldsAfterName(stat)[12]);
            } catch (IOException | UncheckedIOException | NumberFormatException e) {
                return 0;
            }
        }).sum();
    }

    private long totalCpu() {
        return Stream.concat(Stream.of(process), process.descendants())
                .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum();
    }

    /**
     * The fields of a {@code /proc/.../stat} line after the name in parentheses (which may hold spaces): state (field 3)
     * first, so utime and stime (fields 14 and 15) are the 12th and 13th.
     */
    private static String[] fieldsAfterName(String stat) {
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    /** A JIT compiler thread (or else a collector's) and its CPU so far, user + sys, in clock ticks. */
    private record JvmThread(boolean jit, long ticks) {
    }

    /** The JIT compiler and collector threads of the process and its children, by thread id. */
    private Map<Long, JvmThread> jvmThreadTicks() {
        Map<Long, JvmThread> ticks = new HashMap<>();
        Stream.concat(Stream.of(process), process.descendants()).forEach(p -> {
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(p.pid()), "task"))) {
                for (Path task : tasks) {
                    String stat = Files.readString(task.resolve("stat"));
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(stat.indexOf('(') + 1, close);
                    boolean jit = name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler");
                    if (jit || name.equals("VM Thread") || name.startsWith("GC Thread")) {
                        String[] fields = fieldsAfterName(stat);
                        ticks.put(Long.parseLong(task.getFileName().toString()),
                                new JvmThread(jit, Long.parseLong(fields[11]) + Long.parseLong(fields[12])));
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                // the process or a thread ended meanwhile: its last reading stands
            }
        });
        return ticks;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        sample();
    }
}
