package com.liveodds.push.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The delivery benchmark, black box: the built jar in a process of its own, real sources (embedded Artemis, a
 * folder), a fast partner on loopback with injected latency ({@link BenchPartner}), and in the same run the raw
 * baseline ({@link RawBaseline}: plain HTTP/1.1 on blocking sockets, a thread and a keep-alive connection per match
 * and partner, in a JVM of its own) pushing the same messages to the same partner under the same per-match rule.
 * Prints the figures as service / baseline ratios with the goals of contract section 14 (throughput, CPU per message,
 * peak RSS) and of section 16 (the fan-out to 16 partners); timings are printed, never asserted. Every run checks
 * per-match order and loss, at every partner, and those fail the bench.
 *
 * <p>{@code mvn -B verify -Pbench} (packages the jar first). {@code -Dbench.scale=0.25} shrinks the message counts
 * and paced durations; {@code -Dbench.max-in-flight} and {@code -Dbench.jms-consumers} are passed to the service
 * (defaults 256, 4); {@code -Dbench.parts}, {@code -Dbench.fan-out.sources}, {@code -Dbench.jfr},
 * {@code -Dbench.service-jvm-options}, {@code -Dbench.settings} and {@code -Dbench.compare} below.
 */
@Tag("bench")
class DeliveryBench {

    private static final double SCALE = Double.parseDouble(System.getProperty("bench.scale", "1"));
    private static final Path JAR = Path.of(System.getProperty("bench.jar", "target/liveodds-push.jar"));
    private static final String MAX_IN_FLIGHT = System.getProperty("bench.max-in-flight", "256");
    private static final String JMS_CONSUMERS = System.getProperty("bench.jms-consumers", "4");
    /**
     * A run is over when everything arrived, or when nothing more arrived for this long (the rest is then lost); above
     * the longest retry back-off (30 s), so a match recovering from its 503s is waited for.
     */
    private static final Duration STALL = Duration.ofSeconds(60);
    /** JVM options of every service run (default none: the jar's default launch). */
    private static final List<String> SERVICE_JVM_OPTIONS = Stream.of(System.getProperty("bench.service-jvm-options", "").split(" "))
            .filter(o -> !o.isBlank()).toList();
    /** -Dbench.jfr=true: each service run records a JFR profile (settings=profile) into its folder as service.jfr, the raw client next to it. */
    private static final boolean JFR = Boolean.getBoolean("bench.jfr");
    /** -Dbench.parts=throughput,hot: only those parts of the bench (isolation, throughput, hot, latency, fan-out). */
    private static final Set<String> PARTS = Set.of(System.getProperty("bench.parts", "isolation,throughput,hot,latency,fan-out").split(","));
    /** -Dbench.fan-out.sources=file: only those sources in the fan-out (file, jms). */
    private static final List<String> FAN_OUT_SOURCES = List.of(System.getProperty("bench.fan-out.sources", "file,jms").split(","));
    /** -Dbench.settings=k=v,k2=v2: settings given to every service run (as -Dk=v), over the bench's own. */
    private static final Map<String, String> EXTRA_SETTINGS = keyValues(System.getProperty("bench.settings", ""));
    /**
     * -Dbench.compare=key (the values false and true) or key=a,b,...: every service run once per value of that
     * setting, one after the other, each row labelled {key=value}; the raw baseline runs once and serves them all.
     */
    private static final List<Map<String, String>> VARIANTS = variants(System.getProperty("bench.compare", ""));
    /** Partners of the fan-out (contract 16: 16 at 20 ms). */
    private static final int FAN_OUT_PARTNERS = 16;

    /** One way of handing a run's messages over: all at once before the service starts, or paced while it runs. */
    private interface Feed {
        void send(Upstream upstream, Arrivals arrivals) throws Exception;
    }

    /**
     * A finished run: what arrived at each partner, the process's peak RSS (KiB) and its CPU per delivered message
     * (µs; per push in the fan-out).
     */
    private record Run(List<Arrivals> receivers, long peakRssKiB, double cpuMicros) {
        /** What arrived at the partner of a single-partner run. */
        Arrivals arrivals() {
            return receivers.get(0);
        }
    }

    private final FigureTable table = new FigureTable();
    private final List<String> problems = new ArrayList<>();
    /** The raw baseline's runs by name: with -Dbench.compare, each is run once for every variant of the service. */
    private final Map<String, Run> rawRuns = new HashMap<>();
    /** The settings of the service's variant being run (empty without -Dbench.compare). */
    private Map<String, String> variant = Map.of();
    private BenchPartner partner;
    private EmbeddedArtemis broker;
    private Path work;

    @Test
    void deliveryFigures() throws Exception {
        // the embedded broker audits every message at INFO: that would cost the bench JVM the CPU the figures need
        ((Logger) LoggerFactory.getLogger("org.apache.activemq")).setLevel(Level.WARN);
        work = Files.createTempDirectory("delivery-bench");
        long start = System.nanoTime();
        String loadBefore = loadAverage();
        try (BenchPartner p = BenchPartner.start(); EmbeddedArtemis b = new EmbeddedArtemis().start()) {
            partner = p;
            broker = b;
            part("isolation", this::isolation);
            part("throughput", this::throughput);
            part("hot", this::hotMatch);
            part("latency", () -> {
                addedLatency("jms", "p99 ≤ 10, max ≤ 50", (p50, p99, max) -> p99 <= 10 && max <= 50);
                addedLatency("file", "p50 ≤ 60, p99 ≤ 150", (p50, p99, max) -> p50 <= 60 && p99 <= 150);
            });
            part("fan-out", this::fanOut);
            checkTokens(partner);
        } finally {
            String result = String.format("Delivery bench, %s, max-in-flight %s, JMS consumers %s, scale %s, settings %s%s, "
                            + "%d s in all, %d cores, load average %s before and %s after%n%n%s",
                    JAR, MAX_IN_FLIGHT, JMS_CONSUMERS, SCALE, EXTRA_SETTINGS, VARIANTS.size() > 1 ? ", compared " + VARIANTS : "",
                    TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                    Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage(), table.markdown());
            Path report = Path.of("target", "bench", "delivery-bench.md");
            Files.createDirectories(report.getParent());
            Files.writeString(report, result);
            System.out.println("\n" + result + "(also in " + report + "; service logs under " + work + ")");
        }
        assertThat(problems).as("per-match order and loss").isEmpty();
    }

    private interface Part {
        void run() throws Exception;
    }

    /** A part of the bench, if -Dbench.parts names it, once per variant of the service. */
    private void part(String name, Part part) throws Exception {
        if (!PARTS.contains(name)) {
            return;
        }
        for (Map<String, String> v : VARIANTS) {
            variant = v;
            table.label(v.isEmpty() ? "" : " " + v);
            part.run();
        }
        variant = Map.of();
        table.label("");
    }

    /**
     * 32 matches at 5 msg/s each over JMS, partner 5 ms: a warm-up of 5 s of that load (delivered before the measured
     * part starts), then 15 s in which match 0 is answered 503 from second 5 until sending ends (then it recovers, so
     * its backlog drains and can be checked).
     */
    private void isolation() throws Exception {
        int matches = 32;
        double rate = matches * 5.0;
        int warmUp = (int) (5 * rate);
        int failFrom = warmUp + (int) (5 * rate);
        int n = warmUp + (int) (rate * Math.max(8, 15 * SCALE));
        IntPredicate others = i -> i % matches != 0;
        IntPredicate beforeFailure = i -> others.test(i) && i >= warmUp && i < failFrom;
        IntPredicate duringFailure = i -> others.test(i) && i >= failFrom;

        Load service = new Load("iso-svc", n, matches);
        Arrivals s = serviceRun("isolation-jms", "jms", service, 5, null,
                (up, arrivals) -> failingMatchFeed(up, arrivals, rate, warmUp, failFrom)).arrivals();
        Load raw = new Load("iso-raw", n, matches);
        Arrivals r = pacedBaselineRun("isolation", raw, 5, (up, arrivals) -> failingMatchFeed(up, arrivals, rate, warmUp, failFrom)).arrivals();

        long delayed = delayedMatches(s, duringFailure, 1000);
        double worst = max(s.latenciesMs(duringFailure));
        table.add("isolation: 32 matches × 5 msg/s, JMS, partner 5 ms, one answered 503 from second 5: other matches delayed > 1 s",
                delayed + " of 31 (worst " + FigureTable.number(worst) + " ms)",
                delayedMatches(r, duringFailure, 1000) + " of 31", "—", "0", delayed == 0);
        double p99Before = Arrivals.percentile(s.latenciesMs(beforeFailure), 0.99);
        double p99During = Arrivals.percentile(s.latenciesMs(duringFailure), 0.99);
        double rawP99 = Arrivals.percentile(r.latenciesMs(duringFailure), 0.99);
        table.add("isolation: p99 added latency (ms) of the other 31 while it fails (in the 5 s before it fails)",
                FigureTable.number(p99During) + " (" + FigureTable.number(p99Before) + ")", FigureTable.number(rawP99),
                FigureTable.ratio(p99During, rawP99), "unchanged: ≤ 1.5 × before + 1 ms", p99During <= 1.5 * p99Before + 1);
    }

    private void failingMatchFeed(Upstream upstream, Arrivals arrivals, double rate, int warmUp, int failFrom) throws Exception {
        Load load = arrivals.load;
        warmUp(upstream, arrivals, rate, warmUp);
        long start = System.nanoTime();
        partner.failMatch(0, start + (long) ((failFrom - warmUp) * 1e9 / rate), start + (long) ((load.size - warmUp) * 1e9 / rate));
        Upstream.pace(upstream, load, warmUp, load.size, rate, start);
    }

    /**
     * The first messages at the run's rate, then a wait until they are delivered: the measured part starts on a warm
     * service with no backlog left from its cold start.
     */
    private static void warmUp(Upstream upstream, Arrivals arrivals, double rate, int messages) throws Exception {
        Upstream.pace(upstream, arrivals.load, 0, messages, rate, System.nanoTime());
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(50)).until(() -> arrivals.delivered() >= messages);
    }

    /**
     * 20,000 messages over 64 matches preloaded into the source, partner at once (CPU-bound) then 20 ms, from a folder
     * and from JMS, each next to the raw client in a process of its own: throughput, CPU per message and peak RSS.
     */
    private void throughput() throws Exception {
        int n = (int) (20_000 * SCALE);
        int matches = 64;
        String size = String.format("%,d msgs / %d matches", n, matches);
        Run raw0 = rawRun("throughput-at-once", List.of(partner), new Load("t0-raw", n, matches), 0);
        Run raw20 = rawRun("throughput-20ms", List.of(partner), new Load("t20-raw", n, matches), 20);
        for (String source : List.of("file", "jms")) {
            Load at0 = new Load("t0-" + source, n, matches);
            Run s0 = serviceRun("throughput-at-once-" + source, source, at0, 0, all(at0), null);
            throughputRow("throughput (msg/s), " + size + ", " + source + ", partner at once (CPU-bound)", s0, raw0, 0.25);
            table.add("CPU per message (µs, user+sys of the process over the second half), " + source + ", partner at once",
                    FigureTable.number(s0.cpuMicros()), FigureTable.number(raw0.cpuMicros()),
                    FigureTable.ratio(s0.cpuMicros(), raw0.cpuMicros()), "—", null);
            table.add("peak RSS (MiB) after that run, default launch",
                    mib(s0.peakRssKiB()), mib(raw0.peakRssKiB()), FigureTable.ratio(s0.peakRssKiB(), raw0.peakRssKiB()),
                    "≤ 2 × baseline", s0.peakRssKiB() > 0 && s0.peakRssKiB() <= 2 * raw0.peakRssKiB());
            Load at20 = new Load("t20-" + source, n, matches);
            Run s20 = serviceRun("throughput-20ms-" + source, source, at20, 20, all(at20), null);
            throughputRow("throughput (msg/s), " + size + ", " + source + ", partner 20 ms", s20, raw20, 0.9);
        }
    }

    private void throughputRow(String figure, Run service, Run raw, double goal) {
        double s = Arrivals.throughput(service.receivers(), 0.5);
        double r = Arrivals.throughput(raw.receivers(), 0.5);
        boolean judged = goal > 0;
        table.add(figure + ", second half (whole run)", FigureTable.number(s) + " (" + FigureTable.number(Arrivals.throughput(service.receivers(), 0)) + ")",
                FigureTable.number(r) + " (" + FigureTable.number(Arrivals.throughput(raw.receivers(), 0)) + ")", FigureTable.ratio(s, r),
                judged ? "≥ " + goal + " × baseline" : "—", judged ? (Boolean) (s >= goal * r) : null);
    }

    /** One match, 2,000 messages preloaded into JMS, partner at once then 20 ms (one in flight: the limit is 50 msg/s). */
    private void hotMatch() throws Exception {
        int n = (int) (2_000 * SCALE);
        for (long latency : new long[] {0, 20}) {
            Load service = new Load("hot" + latency + "-svc", n, 1);
            Run s = serviceRun("hot-match-" + latency + "ms-jms", "jms", service, latency, all(service), null);
            Run r = rawRun("hot-match-" + latency + "ms", List.of(partner), new Load("hot" + latency + "-raw", n, 1), latency);
            throughputRow(String.format("one hot match (msg/s), %,d msgs, JMS, partner %s", n,
                    latency == 0 ? "at once" : latency + " ms (limit 50)"), s, r, latency == 0 ? 0 : 0.9);
        }
    }

    private interface LatencyGoal {
        boolean met(double p50, double p99, double max);
    }

    /** 16 matches, 200 msg/s in all, partner 5 ms; added latency of the 10 s of messages after a 5 s warm-up. */
    private void addedLatency(String source, String goal, LatencyGoal met) throws Exception {
        double rate = 200;
        int warmUp = (int) (5 * rate);
        int n = warmUp + (int) (rate * Math.max(3, 10 * SCALE));
        Load load = new Load("lat-" + source, n, 16);
        Arrivals a = serviceRun("latency-" + source, source, load, 5, null, (up, arrivals) -> {
            warmUp(up, arrivals, rate, warmUp);
            Upstream.pace(up, load, warmUp, load.size, rate, System.nanoTime());
        }).arrivals();
        double[] latencies = a.latenciesMs(i -> i >= warmUp);
        double p50 = Arrivals.percentile(latencies, 0.5);
        double p99 = Arrivals.percentile(latencies, 0.99);
        double max = max(latencies);
        table.add("added latency (ms), " + source + " source, 16 matches, 200 msg/s in all, partner 5 ms, after 5 s: p50 / p99 / max",
                FigureTable.number(p50) + " / " + FigureTable.number(p99) + " / " + FigureTable.number(max), "—", "—", goal,
                met.met(p50, p99, max));
    }

    /**
     * Contract 16's cost: 16 partners of {@code liveodds.partners} (p01 to p16, each its own receiver on loopback with
     * its own partner id, token endpoint and token, each booking every match, max-in-flight as the other runs) at
     * 20 ms, 5,000 messages over 64 matches preloaded into the source (JMS: published once the service is up), every
     * message pushed to every partner. Next to the raw client pushing the same messages to the same 16 receivers under
     * the same rule (a client per partner, a thread and connection per match and partner): pushes per second and CPU
     * per push.
     */
    private void fanOut() throws Exception {
        int n = (int) (5_000 * SCALE);
        int matches = 64;
        List<BenchPartner> receivers = BenchPartner.start(FAN_OUT_PARTNERS);
        try {
            String size = String.format("%,d msgs / %d matches × %d partners", n, matches, receivers.size());
            Run raw = rawRun("fan-out-20ms", receivers, new Load("fo-raw", n, matches), 20);
            for (String source : FAN_OUT_SOURCES) {
                Load load = new Load("fo-" + source, n, matches);
                Run s = serviceRun("fan-out-20ms-" + source, source, receivers, load, 20, all(load), null);
                throughputRow("fan-out (pushes/s), " + size + ", " + source + ", partners 20 ms", s, raw, 0.8);
                table.add("CPU per push (µs, user+sys of the process over the second half), fan-out, " + source,
                        FigureTable.number(s.cpuMicros()), FigureTable.number(raw.cpuMicros()),
                        FigureTable.ratio(s.cpuMicros(), raw.cpuMicros()), "—", null);
                table.add("peak RSS (MiB) after that run, default launch", mib(s.peakRssKiB()), mib(raw.peakRssKiB()),
                        FigureTable.ratio(s.peakRssKiB(), raw.peakRssKiB()), "—", null);
            }
        } finally {
            for (BenchPartner receiver : receivers) {
                checkTokens(receiver);
                receiver.close();
            }
        }
    }

    private void checkTokens(BenchPartner p) {
        String name = p.identity.name().isEmpty() ? "partner" : "partner " + p.identity.name();
        table.run(String.format("%s: %d token requests, %d pushes answered 401 (wrong or missing token)", name, p.tokenRequests(),
                p.unauthorized()));
        if (p.unauthorized() > 0) {
            problems.add(name + ": " + p.unauthorized() + " pushes came without its token");
        }
    }

    private Run serviceRun(String name, String source, Load load, long partnerLatencyMs, Feed before, Feed during) throws Exception {
        return serviceRun(name, source, List.of(partner), load, partnerLatencyMs, before, during);
    }

    /** A run of the service pushing to these partners (one: the single partner of {@code liveodds.partner.*}). */
    private Run serviceRun(String name, String source, List<BenchPartner> partners, Load load, long partnerLatencyMs, Feed before,
                           Feed during) throws Exception {
        // a folder per variant of -Dbench.compare: each run's service log stays
        Path dir = Files.createDirectories(work.resolve(name + variant.entrySet().stream().map(e -> "-" + e).reduce("", String::concat)));
        Path inbox = Files.createDirectories(dir.resolve("inbox"));
        Path deadLetters = dir.resolve("dead-letter");
        Path log = dir.resolve("service.log");
        String queue = "bench." + name;
        List<Arrivals> receivers = partners.stream().map(p -> p.record(load, partnerLatencyMs)).toList();
        Arrivals arrivals = receivers.get(0);
        long started = System.nanoTime();
        long peakRss;
        double cpu;
        List<String> jvmOptions = new ArrayList<>(SERVICE_JVM_OPTIONS);
        if (JFR) {
            jvmOptions.add("-XX:StartFlightRecording=filename=" + dir.resolve("service.jfr") + ",settings=profile");
        }
        // with liveodds.partners, liveodds.source.jms.queue names a multicast address with a queue per partner (contract 16):
        // the upstream publishes to the topic, whose queues exist only once the service is up, so what is preloaded
        // elsewhere is sent then
        boolean topic = source.equals("jms") && partners.size() > 1;
        Feed preload = topic ? null : before;
        Feed running = topic ? before : during;
        try (Upstream upstream = source.equals("jms") ? new Upstream.Jms(broker, queue, before == null, topic) : new Upstream.Folder(inbox)) {
            if (preload != null) {
                preload.send(upstream, arrivals);
                upstream.settle(load.size);
            }
            try (ServiceUnderTest service = ServiceUnderTest.start(JAR, jvmOptions, settings(source, queue, dir, inbox, deadLetters, partners), log);
                 CpuMeter meter = new CpuMeter(service.handle(), receivers)) {
                if (running != null) {
                    running.send(upstream, arrivals);
                }
                awaitDone(receivers, deadLetters);
                peakRss = service.peakRssKiB();
                cpu = meter.microsPerMessage();
            }
        }
        finish(name + (variant.isEmpty() ? "" : " " + variant), partners, receivers, deadLetters, started, String.format("CPU %s µs/%s, peak RSS %s MiB, log %s",
                FigureTable.number(cpu), partners.size() > 1 ? "push" : "msg", mib(peakRss), log));
        return new Run(receivers, peakRss, cpu);
    }

    /** The raw client fed at a pace (isolation): it runs in the bench JVM, which paces it and injects the 503s. */
    private Run pacedBaselineRun(String name, Load load, long partnerLatencyMs, Feed feed) throws Exception {
        Run done = rawRuns.get(name);
        if (done != null) {
            return done;
        }
        List<Arrivals> arrivals = List.of(partner.record(load, partnerLatencyMs));
        long started = System.nanoTime();
        try (RawBaseline raw = new RawBaseline(partner.identity, partner.baseUrl(), partner.authUrl(), () -> { })) {
            feed.send(raw::push, arrivals.get(0));
            awaitDone(arrivals, null);
        }
        finish("raw baseline " + name, List.of(partner), arrivals, null, started, "in the bench JVM, paced");
        Run run = new Run(arrivals, -1, Double.NaN);
        rawRuns.put(name, run);
        return run;
    }

    /**
     * The raw client alone in a JVM of its own with JVM defaults ({@link RawBaseline#main}), every message handed to it
     * at once, for each of these partners: its throughput, CPU per message and peak RSS are what the service's are
     * divided by.
     */
    private Run rawRun(String name, List<BenchPartner> partners, Load load, long partnerLatencyMs) throws Exception {
        Run done = rawRuns.get(name);
        if (done != null) {
            return done;
        }
        List<Arrivals> arrivals = partners.stream().map(p -> p.record(load, partnerLatencyMs)).toList();
        long started = System.nanoTime();
        Path log = work.resolve("raw-" + name + ".log");
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        if (JFR) {
            command.add("-XX:StartFlightRecording=filename=" + work.resolve("raw-" + name + ".jfr") + ",settings=profile");
        }
        command.addAll(List.of(RawBaseline.class.getName(), String.join(",", partners.stream().map(BenchPartner::baseUrl).toList()),
                String.join(",", partners.stream().map(BenchPartner::authUrl).toList()), load.tag,
                Integer.toString(load.size), Integer.toString(load.matches)));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        double cpu;
        try (CpuMeter meter = new CpuMeter(process.toHandle(), arrivals)) {
            awaitDone(arrivals, null);
            cpu = meter.microsPerMessage();
            process.waitFor(1, TimeUnit.MINUTES);
        } finally {
            process.destroyForcibly();
        }
        String output = Files.readString(log);
        String result = output.lines().filter(l -> l.startsWith("RAW-RESULT ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("raw baseline JVM failed: " + output));
        long kib = Long.parseLong(result.split(" ")[3]);
        finish("raw baseline " + name, partners, arrivals, null, started, String.format("in its own JVM; CPU %s µs/%s, peak RSS %s MiB",
                FigureTable.number(cpu), partners.size() > 1 ? "push" : "msg", mib(kib)));
        Run run = new Run(arrivals, kib, cpu);
        rawRuns.put(name, run);
        return run;
    }

    private Map<String, String> settings(String source, String queue, Path dir, Path inbox, Path deadLetters, List<BenchPartner> partners) {
        Map<String, String> s = new LinkedHashMap<>();
        for (BenchPartner p : partners) {
            String key = p.identity.name().isEmpty() ? "liveodds.partner." : "liveodds.partners." + p.identity.name() + ".";
            if (!p.identity.name().isEmpty()) {
                s.merge("liveodds.partners", p.identity.name(), (a, b) -> a + "," + b);
            }
            s.put(key + "id", p.identity.partnerId());
            s.put(key + "base-url", p.baseUrl());
            s.put(key + "auth-url", p.authUrl());
            s.put(key + "client-id", p.identity.clientId());
            s.put(key + "client-secret", p.identity.clientSecret());
        }
        s.put("liveodds.source", source);
        s.put("liveodds.source.file.dir", inbox.toString());
        s.put("liveodds.source.jms.url", broker.url());
        s.put("liveodds.source.jms.queue", queue);
        s.put("liveodds.source.jms.consumers", JMS_CONSUMERS);
        s.put("liveodds.dead-letter.dir", deadLetters.toString());
        s.put("liveodds.sandbox.token-file", dir.resolve(".sandbox-token").toString());
        s.put("camel.server.host", "127.0.0.1");
        s.put("camel.server.port", Integer.toString(RunningService.freePort()));
        s.put("camel.management.port", Integer.toString(RunningService.freePort()));
        // the figures are about pushes: no heartbeats (any that come are counted apart), no silence check
        s.put("liveodds.upstream.max-silence", "0");
        s.put("liveodds.heartbeat.interval", "1h");
        s.put("liveodds.delivery.max-in-flight", MAX_IN_FLIGHT);
        s.putAll(EXTRA_SETTINGS);
        s.putAll(variant);
        return s;
    }

    private static Feed all(Load load) {
        return (upstream, arrivals) -> {
            for (int i = 0; i < load.size; i++) {
                upstream.hand(load, i);
            }
        };
    }

    /** Waits until every message arrived or was dead-lettered at every partner, or until nothing moved for {@link #STALL}. */
    private static void awaitDone(List<Arrivals> receivers, Path deadLetters) {
        long expected = receivers.stream().mapToLong(a -> a.load.size).sum();
        long[] progress = {-1, System.nanoTime()};
        await().atMost(Duration.ofMinutes(15)).pollInterval(Duration.ofMillis(100)).until(() -> {
            long done = receivers.stream().mapToLong(Arrivals::delivered).sum()
                    + deadLetterIds(deadLetters).values().stream().mapToLong(Set::size).sum();
            if (done >= expected) {
                return true;
            }
            if (done != progress[0]) {
                progress[0] = done;
                progress[1] = System.nanoTime();
                return false;
            }
            return System.nanoTime() - progress[1] > STALL.toNanos();
        });
    }

    /** Checks order and loss at each partner and prints the run's line (the partners' counts added up). */
    private void finish(String run, List<BenchPartner> partners, List<Arrivals> receivers, Path deadLetters, long started, String detail) {
        Map<String, Set<String>> deadLettered = deadLetterIds(deadLetters);
        for (int r = 0; r < receivers.size(); r++) {
            String name = partners.get(r).identity.name();
            for (String problem : receivers.get(r).verdict(deadLettered.getOrDefault(name, Set.of()))) {
                problems.add(run + (name.isEmpty() ? "" : ", partner " + name) + ": " + problem);
            }
        }
        ToLongFunction<ToLongFunction<Arrivals>> sum = count -> receivers.stream().mapToLong(count).sum();
        table.run(String.format("%s: %,d msgs%s, %,d delivered, %d dead-lettered, %d repeats (same Idempotency-Key), %d refused "
                        + "attempts, %d pushes overlapping on a match, %d heartbeats, %d strays; %.0f %s/s (second half %.0f); %d s; %s",
                run, receivers.get(0).load.size, receivers.size() > 1 ? " × " + receivers.size() + " partners" : "",
                sum.applyAsLong(Arrivals::delivered), deadLettered.values().stream().mapToLong(Set::size).sum(),
                sum.applyAsLong(a -> a.repeats.sum()), sum.applyAsLong(a -> a.refused.sum()), sum.applyAsLong(a -> a.overlapping.sum()),
                sum.applyAsLong(a -> a.heartbeats.sum()), sum.applyAsLong(a -> a.strays.sum()), Arrivals.throughput(receivers, 0),
                receivers.size() > 1 ? "pushes" : "msg", Arrivals.throughput(receivers, 0.5),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), detail));
    }

    /**
     * message_ids of the dead letters by the partner they record (empty: the single partner, or a rejected message);
     * none when there is no folder (a raw client's run). A file that exists is whole: the store renames it into place.
     */
    private static Map<String, Set<String>> deadLetterIds(Path deadLetters) {
        if (deadLetters == null || !Files.isDirectory(deadLetters)) {
            return Map.of();
        }
        ObjectMapper json = new ObjectMapper();
        Map<String, Set<String>> ids = new HashMap<>();
        try (Stream<Path> files = Files.list(deadLetters)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json") && !f.getFileName().toString().startsWith(".")).toList()) {
                JsonNode letter = json.readTree(file.toFile());
                JsonNode body = letter.path("body");
                ids.computeIfAbsent(letter.path("partner").asText(""), k -> new HashSet<>())
                        .add(letter.path("message_id").asText(body.path("message_id").asText()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ids;
    }

    private static long delayedMatches(Arrivals arrivals, IntPredicate which, double limitMs) {
        // a message never delivered counts as delayed (NaN is not <= the limit)
        return IntStream.range(0, arrivals.load.size).filter(which).filter(i -> !(arrivals.latencyMs(i) <= limitMs))
                .map(arrivals.load::matchOf).distinct().count();
    }

    private static double max(double[] sorted) {
        return sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1];
    }

    /** The 1-minute load average: figures taken on a machine busy with other work are not comparable. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    /** k=v,k2=v2 as a map, in order. */
    private static Map<String, String> keyValues(String list) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String pair : list.split(",")) {
            int eq = pair.indexOf('=');
            if (!pair.isBlank()) {
                if (eq <= 0) {
                    throw new IllegalArgumentException("-Dbench.settings takes key=value,key=value: " + pair);
                }
                map.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        return map;
    }

    /** The service's variants of -Dbench.compare: key (false, true) or key=a,b,...; none given: one, with nothing added. */
    private static List<Map<String, String>> variants(String compare) {
        if (compare.isBlank()) {
            return List.of(Map.of());
        }
        int eq = compare.indexOf('=');
        String key = (eq < 0 ? compare : compare.substring(0, eq)).trim();
        List<String> values = eq < 0 ? List.of("false", "true") : List.of(compare.substring(eq + 1).split(","));
        return values.stream().map(v -> Map.of(key, v.trim())).toList();
    }

    private static String mib(long kib) {
        return kib < 0 ? "—" : Long.toString(kib / 1024);
    }
}
