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
import java.util.Locale;
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
import com.liveodds.push.bench.Baseline.Client;
import com.liveodds.push.bench.FigureTable.Cell;
import com.liveodds.push.support.EmbeddedArtemis;
import com.liveodds.push.support.RunningService;
import org.apache.camel.util.FileUtil;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The delivery benchmark, black box: the built jar in a process of its own, real sources (embedded Artemis, a
 * folder), a fast partner on loopback with injected latency ({@link BenchPartner}), and in the same run two baselines
 * ({@link Baseline}, each in a JVM of its own, a thread per match and partner): the tuned camel-http client of contract
 * 23 ({@link CamelHttpClient}) and the raw client (plain HTTP/1.1 on blocking sockets), pushing the same messages to
 * the same partners under the same per-match rule. Each run sends a warm-up on matches of its own and measures the
 * load after it. Prints the figures with the service's ratio to both baselines and the goals of contract section 23
 * (one partner, the 16- and 64-partner fan-outs, RSS, JMS latency) and of section 16; timings are printed, never
 * asserted. Every run checks per-match order and loss, at every partner, and those fail the bench.
 *
 * <p>{@code mvn -B verify -Pbench} (packages the jar first). {@code -Dbench.scale=0.25} shrinks the message counts
 * and paced durations; {@code -Dbench.max-in-flight} and {@code -Dbench.jms-consumers} are passed to the service
 * (defaults 256, 4); {@code -Dbench.parts}, {@code -Dbench.warm-up}, {@code -Dbench.fan-out.sources},
 * {@code -Dbench.jfr}, {@code -Dbench.service-jvm-options}, {@code -Dbench.settings} and {@code -Dbench.compare} below.
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
    /** -Dbench.jfr.settings: the recording's settings, a JDK name or a .jfc file (profile samples each thread every 10 ms). */
    private static final String JFR_SETTINGS = System.getProperty("bench.jfr.settings", "profile");
    /** -Dbench.parts=throughput,hot: only those parts of the bench (isolation, throughput, hot, latency, fan-out, fan-out-64). */
    private static final Set<String> PARTS = Set.of(System.getProperty("bench.parts",
            "isolation,throughput,hot,latency,fan-out,fan-out-64").split(","));
    /**
     * -Dbench.warm-up=0.5: the warm-up before a load handed over at once, as a share of its messages (0: none), sent
     * to the service and to each baseline and delivered before the load is handed over.
     */
    private static final double WARM_UP = Double.parseDouble(System.getProperty("bench.warm-up", "0.5"));
    /** -Dbench.fan-out.sources=file: only those sources in the fan-out (file, jms). */
    private static final List<String> FAN_OUT_SOURCES = List.of(System.getProperty("bench.fan-out.sources", "file,jms").split(","));
    /** -Dbench.throughput.sources=jms: only those sources in the one-partner throughput part (file, jms). */
    private static final List<String> THROUGHPUT_SOURCES = List.of(System.getProperty("bench.throughput.sources", "file,jms").split(","));
    /** -Dbench.settings=k=v,k2=v2: settings given to every service run (as -Dk=v), over the bench's own. */
    private static final Map<String, String> EXTRA_SETTINGS = keyValues(System.getProperty("bench.settings", ""));
    /**
     * -Dbench.compare=key (the values false and true) or key=a,b,...: every service run once per value of that
     * setting, one after the other, each row labelled {key=value}; the raw baseline runs once and serves them all.
     */
    private static final List<Map<String, String>> VARIANTS = variants(System.getProperty("bench.compare", ""));
    /** Partners of the fan-out (contract 16: 16 at 20 ms) and of the wide one (contract 23: 64). */
    private static final int FAN_OUT_PARTNERS = 16;
    private static final int WIDE_FAN_OUT_PARTNERS = 64;

    /** A way of pacing a run's messages while the service runs. */
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

    /** The two baselines of a figure, measured in the same sitting (camel null: the raw client's alone). */
    private record Baselines(Run camel, Run raw) {
    }

    private final FigureTable table = new FigureTable();
    private final List<String> problems = new ArrayList<>();
    /** The baselines' runs by client and name: with -Dbench.compare, each is run once for every variant of the service. */
    private final Map<String, Run> baselineRuns = new HashMap<>();
    /** The 16-partner fan-out's runs by variant and source: what the 64 partners' CPU per push is set against. */
    private final Map<String, Run> fanOutRuns = new HashMap<>();
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
            part("fan-out-64", this::wideFanOut);
            checkTokens(partner);
        } finally {
            String result = String.format("Delivery bench, %s, max-in-flight %s, JMS consumers %s, scale %s, warm-up %s, settings %s%s, "
                            + "%d s in all, %d cores, load average %s before and %s after%n%n%s",
                    JAR, MAX_IN_FLIGHT, JMS_CONSUMERS, SCALE, WARM_UP, EXTRA_SETTINGS, VARIANTS.size() > 1 ? ", compared " + VARIANTS : "",
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
        Arrivals s = serviceRun("isolation-jms", "jms", List.of(partner), service, 5, null,
                (up, arrivals) -> failingMatchFeed(up, arrivals, rate, warmUp, failFrom)).arrivals();
        Load raw = new Load("iso-raw", n, matches);
        Arrivals r = pacedBaselineRun("isolation", raw, 5, (up, arrivals) -> failingMatchFeed(up, arrivals, rate, warmUp, failFrom)).arrivals();

        long delayed = delayedMatches(s, duringFailure, 1000);
        double worst = max(s.latenciesMs(duringFailure));
        table.add("isolation: 32 matches × 5 msg/s, JMS, partner 5 ms, one answered 503 from second 5: other matches delayed > 1 s",
                delayed + " of 31 (worst " + FigureTable.number(worst) + " ms)", Cell.NONE,
                new Cell(delayedMatches(r, duringFailure, 1000) + " of 31", "—"), "0", delayed == 0);
        double p99Before = Arrivals.percentile(s.latenciesMs(beforeFailure), 0.99);
        double p99During = Arrivals.percentile(s.latenciesMs(duringFailure), 0.99);
        double rawP99 = Arrivals.percentile(r.latenciesMs(duringFailure), 0.99);
        table.add("isolation: p99 added latency (ms) of the other 31 while it fails (in the 5 s before it fails)",
                FigureTable.number(p99During) + " (" + FigureTable.number(p99Before) + ")", Cell.NONE, cell(p99During, rawP99),
                "unchanged: ≤ 1.5 × before + 1 ms", p99During <= 1.5 * p99Before + 1);
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

    /** The warm-up before a load handed over at once (-Dbench.warm-up of its messages, on matches of its own); null: none. */
    private static Load warmUp(Load load) {
        int messages = (int) (load.size * WARM_UP);
        return messages > 0 ? load.warmUp(messages) : null;
    }

    /**
     * Contract 23's one partner: 20,000 messages over 64 matches handed to the source at once after a warm-up, partner
     * at 20 ms, from a folder and from JMS, each next to the camel-http client and the raw client in processes of their
     * own: throughput, CPU per message and peak RSS.
     */
    private void throughput() throws Exception {
        int n = (int) (20_000 * SCALE);
        int matches = 64;
        String size = String.format("%,d msgs / %d matches", n, matches);
        Baselines base = baselines("throughput-20ms", List.of(partner), "t20", n, matches, 20);
        for (String source : THROUGHPUT_SOURCES) {
            Load load = new Load("t20-" + source, n, matches);
            Run s = serviceRun("throughput-20ms-" + source, source, List.of(partner), load, 20, warmUp(load), null);
            throughputRow("throughput (msg/s), " + size + ", " + source + ", partner 20 ms", s, base, 0.9, true);
            cpuRow("CPU per message (µs), " + source + ", partner 20 ms", s, base, 2.5);
            table.add("peak RSS (MiB) after that run, default launch", mib(s.peakRssKiB()), rssCell(s, base.camel()), rssCell(s, base.raw()),
                    "≤ 2.5 × raw", s.peakRssKiB() > 0 && s.peakRssKiB() <= 2.5 * base.raw().peakRssKiB());
        }
    }

    /**
     * Msg/s (pushes/s) over the second half of the measured part, the whole measured part in brackets; the goal (0:
     * none) a share of the camel-http client's figure or of the raw client's.
     */
    private void throughputRow(String figure, Run service, Baselines base, double goal, boolean ofCamel) {
        double s = Arrivals.throughput(service.receivers(), 0.5);
        Run judgedBy = ofCamel ? base.camel() : base.raw();
        boolean judged = goal > 0;
        table.add(figure + ", second half (whole measured part)",
                FigureTable.number(s) + " (" + FigureTable.number(Arrivals.throughput(service.receivers(), 0)) + ")",
                throughputCell(s, base.camel()), throughputCell(s, base.raw()),
                judged ? "≥ " + goal + " × " + (ofCamel ? "camel" : "raw") : "—",
                judged ? (Boolean) (s >= goal * Arrivals.throughput(judgedBy.receivers(), 0.5)) : null);
    }

    /** CPU of the process over the second half of the measured part per message (per push in a fan-out); the goal (0: none) a multiple of the camel-http client's. */
    private void cpuRow(String figure, Run service, Baselines base, double goal) {
        double s = service.cpuMicros();
        double camel = base.camel() == null ? Double.NaN : base.camel().cpuMicros();
        boolean judged = goal > 0 && !Double.isNaN(s) && !Double.isNaN(camel);
        table.add(figure + ", user+sys of the process over the second half", FigureTable.number(s), cell(s, camel),
                cell(s, base.raw().cpuMicros()), goal > 0 ? "≤ " + goal + " × camel" : "—", judged ? (Boolean) (s <= goal * camel) : null);
    }

    /** One match, 2,000 messages handed to JMS at once after a warm-up, partner at once then 20 ms (one in flight: the limit is 50 msg/s). */
    private void hotMatch() throws Exception {
        int n = (int) (2_000 * SCALE);
        for (long latency : new long[] {0, 20}) {
            Load service = new Load("hot" + latency + "-svc", n, 1);
            Run s = serviceRun("hot-match-" + latency + "ms-jms", "jms", List.of(partner), service, latency, warmUp(service), null);
            Run r = baselineRun(Client.RAW, "hot-match-" + latency + "ms", List.of(partner), new Load("hot" + latency + "-raw", n, 1), latency);
            throughputRow(String.format("one hot match (msg/s), %,d msgs, JMS, partner %s", n,
                    latency == 0 ? "at once" : latency + " ms (limit 50)"), s, new Baselines(null, r), latency == 0 ? 0 : 0.9, false);
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
        Arrivals a = serviceRun("latency-" + source, source, List.of(partner), load, 5, null, (up, arrivals) -> {
            warmUp(up, arrivals, rate, warmUp);
            Upstream.pace(up, load, warmUp, load.size, rate, System.nanoTime());
        }).arrivals();
        double[] latencies = a.latenciesMs(i -> i >= warmUp);
        double p50 = Arrivals.percentile(latencies, 0.5);
        double p99 = Arrivals.percentile(latencies, 0.99);
        double max = max(latencies);
        table.add("added latency (ms), " + source + " source, 16 matches, 200 msg/s in all, partner 5 ms, after 5 s: p50 / p99 / max",
                FigureTable.number(p50) + " / " + FigureTable.number(p99) + " / " + FigureTable.number(max), Cell.NONE, Cell.NONE, goal,
                met.met(p50, p99, max));
    }

    /** Contract 16's fan-out and contract 23's CPU per push there: 16 partners, 5,000 messages, from a folder and from JMS. */
    private void fanOut() throws Exception {
        fanOut(FAN_OUT_PARTNERS, (int) (5_000 * SCALE), FAN_OUT_SOURCES);
    }

    /**
     * Contract 23's partners scaling flat: 64 partners, from a folder, a quarter of the fan-out's messages (as many
     * pushes): CPU per push next to the 16 partners' of the same sitting, and the service's peak RSS.
     */
    private void wideFanOut() throws Exception {
        fanOut(WIDE_FAN_OUT_PARTNERS, (int) (5_000 * SCALE * FAN_OUT_PARTNERS / WIDE_FAN_OUT_PARTNERS), List.of("file"));
    }

    /**
     * Partners p01, p02, ... of {@code liveodds.partners} (each its own receiver on loopback with its own partner id,
     * token endpoint and token, each booking every match, max-in-flight as the other runs) at 20 ms, messages over 64
     * matches handed to the source at once after a warm-up (JMS: published to the topic), every message pushed to every
     * partner. Next to the camel-http client and the raw client pushing the same messages to the same receivers under
     * the same rule (a client per partner, a thread per match and partner): pushes per second and CPU per push.
     */
    private void fanOut(int partners, int n, List<String> sources) throws Exception {
        int matches = 64;
        List<BenchPartner> receivers = BenchPartner.start(partners);
        try {
            String size = String.format("%,d msgs / %d matches × %d partners", n, matches, partners);
            String name = "fan-out-" + partners + "-20ms";
            Baselines base = baselines(name, receivers, "fo" + partners, n, matches, 20);
            for (String source : sources) {
                Load load = new Load("fo" + partners + "-" + source, n, matches);
                Run s = serviceRun(name + "-" + source, source, receivers, load, 20, warmUp(load), null);
                String figure = "fan-out to " + partners + " partners at 20 ms, " + source;
                throughputRow(figure + ": pushes/s, " + size, s, base, partners == FAN_OUT_PARTNERS ? 0.8 : 0, false);
                cpuRow(figure + ": CPU per push (µs)", s, base, partners == FAN_OUT_PARTNERS ? 2 : 0);
                if (partners == FAN_OUT_PARTNERS) {
                    table.add(figure + ": peak RSS (MiB), default launch", mib(s.peakRssKiB()), rssCell(s, base.camel()),
                            rssCell(s, base.raw()), "—", null);
                    fanOutRuns.put(variant.toString() + source, s);
                } else {
                    flatRows(figure, source, s, base);
                }
            }
        } finally {
            for (BenchPartner receiver : receivers) {
                checkTokens(receiver);
                receiver.close();
            }
        }
    }

    /** The wide fan-out next to the 16 partners' of the same sitting: CPU per push grown by at most 1.25×, RSS within 512 MiB. */
    private void flatRows(String figure, String source, Run service, Baselines base) {
        Run sixteen = fanOutRuns.get(variant.toString() + source);
        Run camel16 = baselineRuns.get(Client.CAMEL_HTTP + " fan-out-" + FAN_OUT_PARTNERS + "-20ms");
        Run raw16 = baselineRuns.get(Client.RAW + " fan-out-" + FAN_OUT_PARTNERS + "-20ms");
        double growth = sixteen == null ? Double.NaN : service.cpuMicros() / sixteen.cpuMicros();
        table.add(figure + ": CPU per push ÷ the 16-partner run's of this sitting",
                FigureTable.number(service.cpuMicros()) + " ÷ " + (sixteen == null ? "—" : FigureTable.number(sixteen.cpuMicros()))
                        + " = " + FigureTable.ratio(service.cpuMicros(), sixteen == null ? Double.NaN : sixteen.cpuMicros()),
                growthCell(base.camel(), camel16), growthCell(base.raw(), raw16), "≤ 1.25",
                Double.isNaN(growth) ? null : (Boolean) (growth <= 1.25));
        table.add(figure + ": peak RSS (MiB), default launch", mib(service.peakRssKiB()), rssCell(service, base.camel()),
                rssCell(service, base.raw()), "≤ 512 MiB", service.peakRssKiB() > 0 && service.peakRssKiB() <= 512 * 1024);
    }

    private static Cell growthCell(Run wide, Run sixteen) {
        return sixteen == null ? Cell.NONE : new Cell(FigureTable.ratio(wide.cpuMicros(), sixteen.cpuMicros()) + " (its own)", "—");
    }

    private static Cell cell(double service, double baseline) {
        return new Cell(FigureTable.number(baseline), FigureTable.ratio(service, baseline));
    }

    private static Cell throughputCell(double service, Run baseline) {
        if (baseline == null) {
            return Cell.NONE;
        }
        double b = Arrivals.throughput(baseline.receivers(), 0.5);
        return new Cell(FigureTable.number(b) + " (" + FigureTable.number(Arrivals.throughput(baseline.receivers(), 0)) + ")",
                FigureTable.ratio(service, b));
    }

    private static Cell rssCell(Run service, Run baseline) {
        return baseline == null ? Cell.NONE
                : new Cell(mib(baseline.peakRssKiB()), FigureTable.ratio(service.peakRssKiB(), baseline.peakRssKiB()));
    }

    private void checkTokens(BenchPartner p) {
        String name = p.identity.name().isEmpty() ? "partner" : "partner " + p.identity.name();
        table.run(String.format("%s: %d token requests, %d pushes answered 401 (wrong or missing token)", name, p.tokenRequests(),
                p.unauthorized()));
        if (p.unauthorized() > 0) {
            problems.add(name + ": " + p.unauthorized() + " pushes came without its token");
        }
    }

    /**
     * A run of the service pushing to these partners (one: the single partner of {@code liveodds.partner.*}). With a
     * warm-up, the warm-up is handed over first (before the service starts: a backlog; a JMS topic once it is up) and
     * delivered, then the load, at once unless a feed paces it; without one, a load handed at once is preloaded before
     * the service starts. The figures are the load's alone.
     */
    private Run serviceRun(String name, String source, List<BenchPartner> partners, Load load, long partnerLatencyMs, Load warmUp,
                           Feed during) throws Exception {
        // a folder per variant of -Dbench.compare: each run's service log stays
        Path dir = Files.createDirectories(work.resolve(name + variant.entrySet().stream().map(e -> "-" + e).reduce("", String::concat)));
        Path inbox = Files.createDirectories(dir.resolve("inbox"));
        Path deadLetters = dir.resolve("dead-letter");
        Path log = dir.resolve("service.log");
        String queue = "bench." + name;
        List<Arrivals> receivers = partners.stream().map(p -> p.record(load, partnerLatencyMs)).toList();
        List<Arrivals> warmReceivers = warmUp == null ? List.of() : partners.stream().map(p -> p.recordWarmUp(warmUp)).toList();
        long started = System.nanoTime();
        long peakRss;
        double cpu;
        String jvm;
        List<String> jvmOptions = new ArrayList<>(SERVICE_JVM_OPTIONS);
        if (JFR) {
            jvmOptions.add("-XX:StartFlightRecording=filename=" + dir.resolve("service.jfr") + ",settings=" + JFR_SETTINGS);
        }
        // with liveodds.partners, liveodds.source.jms.queue names a multicast address with a queue per partner (contract 16):
        // the upstream publishes to the topic, whose queues exist only once the service is up, so what is preloaded
        // elsewhere is sent then
        boolean topic = source.equals("jms") && partners.size() > 1;
        Load first = warmUp != null ? warmUp : during == null ? load : null;
        try (Upstream upstream = source.equals("jms") ? new Upstream.Jms(broker, queue, during != null, topic) : new Upstream.Folder(inbox)) {
            if (first != null && !topic) {
                handAll(upstream, first);
                upstream.settle(first.size);
            }
            try (ServiceUnderTest service = ServiceUnderTest.start(JAR, jvmOptions, settings(source, queue, dir, inbox, deadLetters, partners), log);
                 CpuMeter meter = new CpuMeter(service.handle(), receivers)) {
                if (first != null && topic) {
                    handAll(upstream, first);
                }
                if (warmUp != null) {
                    awaitDone(warmReceivers, deadLetters);
                    if (during == null) {
                        handAll(upstream, load);
                    }
                }
                if (during != null) {
                    during.send(upstream, receivers.get(0));
                }
                awaitDone(receivers, deadLetters);
                peakRss = service.peakRssKiB();
                cpu = meter.microsPerMessage();
                jvm = meter.jvmShares();
            }
        }
        String run = name + (variant.isEmpty() ? "" : " " + variant);
        verdicts("warm-up of " + run, partners, warmReceivers, deadLetters);
        finish(run, partners, receivers, deadLetters, started, String.format("%sCPU %s µs/%s (%s), peak RSS %s MiB, log %s",
                warmedBy(warmUp), FigureTable.number(cpu), partners.size() > 1 ? "push" : "msg", jvm, mib(peakRss), log));
        // the run's files go (its log stays): later runs of a sitting were slower while earlier runs' files stayed
        FileUtil.removeDir(inbox.toFile());
        return new Run(receivers, peakRss, cpu);
    }

    private static String warmedBy(Load warmUp) {
        return warmUp == null ? "" : String.format("after a warm-up of %,d msgs; ", warmUp.size);
    }

    private static void handAll(Upstream upstream, Load load) throws Exception {
        for (int i = 0; i < load.size; i++) {
            upstream.hand(load, i);
        }
    }

    /** The raw client fed at a pace (isolation): it runs in the bench JVM, which paces it and injects the 503s. */
    private Run pacedBaselineRun(String name, Load load, long partnerLatencyMs, Feed feed) throws Exception {
        String key = Client.RAW + " " + name;
        Run done = baselineRuns.get(key);
        if (done != null) {
            return done;
        }
        List<Arrivals> arrivals = List.of(partner.record(load, partnerLatencyMs));
        long started = System.nanoTime();
        try (Baseline raw = new Baseline(partner.identity, partner.baseUrl(), partner.authUrl(), Baseline.plain(partner.baseUrl()), () -> { })) {
            feed.send(raw::push, arrivals.get(0));
            awaitDone(arrivals, null);
        }
        finish("raw client " + name, List.of(partner), arrivals, null, started, "in the bench JVM, paced");
        Run run = new Run(arrivals, -1, Double.NaN);
        baselineRuns.put(key, run);
        return run;
    }

    /** Both baselines pushing a load of their own (tag-camel, tag-raw) to these partners, one after the other. */
    private Baselines baselines(String name, List<BenchPartner> partners, String tag, int n, int matches, long partnerLatencyMs)
            throws Exception {
        return new Baselines(baselineRun(Client.CAMEL_HTTP, name, partners, new Load(tag + "-camel", n, matches), partnerLatencyMs),
                baselineRun(Client.RAW, name, partners, new Load(tag + "-raw", n, matches), partnerLatencyMs));
    }

    /**
     * A baseline client alone in a JVM of its own with JVM defaults ({@link Baseline#main}), its warm-up then the load
     * handed to it at once, for each of these partners: its throughput, CPU per message and peak RSS are what the
     * service's are divided by. Once per sitting: with -Dbench.compare it serves every variant.
     */
    private Run baselineRun(Client client, String name, List<BenchPartner> partners, Load load, long partnerLatencyMs) throws Exception {
        String key = client + " " + name;
        Run done = baselineRuns.get(key);
        if (done != null) {
            return done;
        }
        List<Arrivals> arrivals = partners.stream().map(p -> p.record(load, partnerLatencyMs)).toList();
        Load warmUp = warmUp(load);
        List<Arrivals> warmArrivals = warmUp == null ? List.of() : partners.stream().map(p -> p.recordWarmUp(warmUp)).toList();
        long started = System.nanoTime();
        String label = client.name().toLowerCase(Locale.ROOT);
        Path log = work.resolve(label + "-" + name + ".log");
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path")));
        if (JFR) {
            command.add("-XX:StartFlightRecording=filename=" + work.resolve(label + "-" + name + ".jfr") + ",settings=" + JFR_SETTINGS);
        }
        command.addAll(List.of(Baseline.class.getName(), label, String.join(",", partners.stream().map(BenchPartner::baseUrl).toList()),
                String.join(",", partners.stream().map(BenchPartner::authUrl).toList()), load.tag,
                Integer.toString(load.size), Integer.toString(load.matches), Integer.toString(warmUp == null ? 0 : warmUp.size)));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        double cpu;
        String jvm;
        try (CpuMeter meter = new CpuMeter(process.toHandle(), arrivals)) {
            awaitDone(arrivals, null);
            cpu = meter.microsPerMessage();
            jvm = meter.jvmShares();
            process.waitFor(1, TimeUnit.MINUTES);
        } finally {
            process.destroyForcibly();
        }
        String line = Files.readString(log).lines().filter(l -> l.startsWith("BASELINE-RESULT ")).findFirst()
                .orElseThrow(() -> new IllegalStateException(label + " baseline JVM failed: see " + log));
        long kib = Long.parseLong(line.split(" ")[3]);
        String run = (client == Client.RAW ? "raw client " : "camel-http client ") + name;
        verdicts("warm-up of " + run, partners, warmArrivals, null);
        finish(run, partners, arrivals, null, started, String.format("in its own JVM; %sCPU %s µs/%s (%s), peak RSS %s MiB",
                warmedBy(warmUp), FigureTable.number(cpu), partners.size() > 1 ? "push" : "msg", jvm, mib(kib)));
        Run measured = new Run(arrivals, kib, cpu);
        baselineRuns.put(key, measured);
        return measured;
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
        verdicts(run, partners, receivers, deadLetters);
        Map<String, Set<String>> deadLettered = deadLetterIds(deadLetters);
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

    /** Order and loss at each partner (none: nothing to check); what breaks them fails the bench. */
    private void verdicts(String run, List<BenchPartner> partners, List<Arrivals> receivers, Path deadLetters) {
        Map<String, Set<String>> deadLettered = deadLetterIds(deadLetters);
        for (int r = 0; r < receivers.size(); r++) {
            String name = partners.get(r).identity.name();
            for (String problem : receivers.get(r).verdict(deadLettered.getOrDefault(name, Set.of()))) {
                problems.add(run + (name.isEmpty() ? "" : ", partner " + name) + ": " + problem);
            }
        }
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
