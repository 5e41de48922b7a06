package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages of the bundle depend on each other in one direction, from top to bottom:
 *
 * <pre>
 *   (root)      the launcher, liveoddsSettings: may read anything          status: reads anything; read by none
 *   source.*    file, http, jms, kafka: read ingest, deadletter, heartbeat, and of delivery only SourceHandover
 *               (and the push's PushOutcome)                               check (check-partner): token, partner
 *   deadletter  reads ingest, delivery
 *   ingest      validation, match id, the push: reads delivery
 *   delivery    partners' pushes, their record, heartbeats sent: reads queue, heartbeat, token, partner
 *   queue       liveoddsQueue, the keyed seda: a Camel component that knows exchanges, not pushes; reads nothing
 *   heartbeat   live matches, upstream liveness: beside delivery, reads neither delivery nor above
 *   token       reads partner
 *   partner     reads only the bottom
 *   ops         logs, meters, masking: reads only settings             settings: reads nothing of the bundle
 *   httpapi, auth, sandbox, demo, tracing (names the queue's spans): small leaves beside the bottom  fixtures, booking: read partner (the bookings)
 *   recovery    what was accepted, pushed again: reads ingest, delivery, partner, queue (a hold on a match)
 *   recovery.kafka  several instances on Kafka: the whole topic kept, recoveries to the partitions' owners; reads
 *               recovery, ingest, delivery, and of the sources source.kafka (which partitions are whose)
 * </pre>
 *
 * Delivery's progress of a push, {@code delivery.DeliveryState}, is read by delivery alone. Read from the sources'
 * references to the bundle's classes (imports and fully qualified names), so a new reference that closes a cycle or
 * goes against the direction fails here.
 */
class PackageDirectionTest {

    private static final Path SOURCES = Path.of("src/main/java/com/liveodds/push");
    private static final Path ROUTES = Path.of("routes");
    private static final String ROOT = "(root)";
    /** A reference to a class of the bundle: its package (empty for the root) and its name. */
    private static final Pattern REFERENCE = Pattern.compile("\\bcom\\.liveodds\\.push\\.((?:[a-z][a-z0-9]*\\.)*)([A-Z]\\w*)");
    private static final Pattern WILDCARD = Pattern.compile("^import (?:static )?com\\.liveodds\\.push\\.[\\w.]*\\*;", Pattern.MULTILINE);
    private static final Set<String> BOTTOM = Set.of("settings", "ops");

    /**
     * What each package may read besides itself and the bottom (settings, and ops for all but settings); a sub-package
     * of {@code source} follows the rule of {@code source}. A new package must be placed here.
     */
    private static final Map<String, Set<String>> MAY_READ = Map.ofEntries(
            Map.entry("settings", Set.of()),
            Map.entry("ops", Set.of()),
            Map.entry("httpapi", Set.of()),
            Map.entry("auth", Set.of("httpapi")),
            Map.entry("partner", Set.of()),
            Map.entry("token", Set.of("partner")),
            Map.entry("heartbeat", Set.of()),
            Map.entry("queue", Set.of()),
            Map.entry("delivery", Set.of("queue", "heartbeat", "token", "partner")),
            Map.entry("ingest", Set.of("delivery")),
            Map.entry("deadletter", Set.of("ingest", "delivery")),
            Map.entry("source", Set.of("source", "deadletter", "ingest", "delivery", "heartbeat", "auth", "httpapi")),
            Map.entry("check", Set.of("token", "partner")),
            Map.entry("fixtures", Set.of("httpapi", "partner")),
            Map.entry("booking", Set.of("httpapi", "partner")),
            Map.entry("recovery", Set.of("httpapi", "partner", "delivery", "ingest", "queue")),
            Map.entry("recovery.kafka", Set.of("recovery", "ingest", "delivery", "source.kafka")),
            Map.entry("sandbox", Set.of()),
            Map.entry("demo", Set.of()),
            Map.entry("tracing", Set.of("queue")),
            Map.entry("status", Set.of("*")),
            Map.entry(ROOT, Set.of("*")));

    /** Package → packages it reads. */
    private static final Map<String, Set<String>> USES = new TreeMap<>();
    /** Package → classes of other packages it reads ({@code delivery.Push}). */
    private static final Map<String, Set<String>> CLASSES = new TreeMap<>();
    private static final List<String> WILDCARDS = new ArrayList<>();

    @BeforeAll
    static void readReferences() throws IOException {
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String pkg = packageOf(file);
                String text = Files.readString(file);
                Set<String> uses = USES.computeIfAbsent(pkg, k -> new TreeSet<>());
                Set<String> classes = CLASSES.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(text);
                while (m.find()) {
                    String used = m.group(1).isEmpty() ? ROOT : m.group(1).substring(0, m.group(1).length() - 1);
                    if (!used.equals(pkg)) {
                        uses.add(used);
                        classes.add(used + "." + m.group(2));
                    }
                }
                if (WILDCARD.matcher(text).find()) {
                    WILDCARDS.add(file.toString());
                }
            }
        }
    }

    private static String packageOf(Path file) {
        Path dir = SOURCES.relativize(file.getParent());
        return dir.toString().isEmpty() ? ROOT : dir.toString().replace('/', '.');
    }

    private static String rule(String pkg) {
        return pkg.startsWith("source.") ? "source" : pkg;
    }

    private static boolean reads(String pkg, String prefix) {
        return USES.getOrDefault(pkg, Set.of()).stream().anyMatch(u -> u.equals(prefix) || u.startsWith(prefix + "."));
    }

    @Test
    void theReadingIsComplete() {
        assertThat(USES).as("packages found").containsKeys("delivery", "ingest", "ops", "source.kafka", "status");
        assertThat(WILDCARDS).as("wildcard imports of the bundle hide what a class reads").isEmpty();
    }

    @Test
    void noPackageCycles() {
        List<List<String>> cycles = new ArrayList<>();
        for (String start : USES.keySet()) {
            findCycle(start, start, new ArrayList<>(List.of(start)), cycles);
        }
        assertThat(cycles).as("package cycles (imports: %s)", USES).isEmpty();
    }

    private static void findCycle(String start, String at, List<String> path, List<List<String>> cycles) {
        for (String next : USES.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                List<String> cycle = new ArrayList<>(path);
                cycle.add(start);
                cycles.add(cycle);
            } else if (!path.contains(next) && next.compareTo(start) > 0) {
                path.add(next);
                findCycle(start, next, path, cycles);
                path.remove(path.size() - 1);
            }
        }
    }

    @Test
    void everyPackageReadsOnlyWhatItsPlaceAllows() {
        USES.forEach((pkg, uses) -> {
            Set<String> allowed = MAY_READ.get(rule(pkg));
            assertThat(allowed).as("package %s has no place in MAY_READ: decide what it may read", pkg).isNotNull();
            if (allowed.contains("*")) {
                return;
            }
            Set<String> bottom = pkg.equals("settings") ? Set.of() : pkg.equals("ops") ? Set.of("settings") : BOTTOM;
            for (String used : uses) {
                boolean ok = bottom.contains(used) || allowed.contains(used);
                assertThat(ok).as("%s reads %s (%s); it may read %s and %s", pkg, used,
                        CLASSES.get(pkg).stream().filter(c -> c.startsWith(used + ".")).toList(), allowed, bottom).isTrue();
            }
        });
    }

    @Test
    void statusAndTheRootReadTheOthersAndAreReadByNone() {
        USES.forEach((pkg, uses) -> {
            if (!pkg.equals("status") && !pkg.equals(ROOT)) {
                assertThat(reads(pkg, "status")).as("%s reads status (%s)", pkg, CLASSES.get(pkg)).isFalse();
            }
            if (!pkg.equals(ROOT)) {
                assertThat(uses).as("%s reads the root package", pkg).doesNotContain(ROOT);
            }
        });
    }

    @Test
    void opsAndSettingsAreTheBottom() {
        assertThat(USES.getOrDefault("ops", Set.of())).as("ops (logs, meters, masking) is read by all, reads only settings")
                .allMatch(u -> u.equals("settings"));
        assertThat(USES.getOrDefault("settings", Set.of())).as("settings read nothing of the bundle").isEmpty();
    }

    @Test
    void sourcesFeedIngestAndNothingBelowReadsTheSources() {
        for (String lower : List.of("ingest", "delivery", "token", "partner", "heartbeat", "deadletter", "ops", "settings")) {
            assertThat(reads(lower, "source")).as("%s reads a source (%s)", lower, CLASSES.get(lower)).isFalse();
        }
        assertThat(USES.getOrDefault("partner", Set.of())).as("partner reads only settings and ops")
                .allMatch(BOTTOM::contains);
        assertThat(USES.getOrDefault("heartbeat", Set.of())).as("heartbeat, beside delivery, does not read it")
                .doesNotContain("delivery");
    }

    @Test
    void deliveryStateIsReadByDeliveryAlone() throws IOException {
        CLASSES.forEach((pkg, classes) -> assertThat(classes).as("%s reads delivery's progress of a push", pkg)
                .doesNotContain("delivery.DeliveryState"));
        CLASSES.forEach((pkg, classes) -> {
            if (pkg.startsWith("source")) {
                assertThat(classes).as("%s meets delivery in SourceHandover (and the push's PushOutcome) only", pkg)
                        .filteredOn(c -> c.startsWith("delivery."))
                        .allMatch(c -> c.equals("delivery.SourceHandover") || c.equals("delivery.PushOutcome"));
            }
        });
        // the exchange variable "delivery" holds the DeliveryState: only delivery's own routes read it
        try (Stream<Path> files = Files.list(ROUTES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                if (!file.getFileName().toString().equals("delivery.yaml")) {
                    assertThat(Files.readString(file)).as("%s reads the variable delivery", file)
                            .doesNotContain("variable.delivery").doesNotContain("DeliveryState");
                }
            }
        }
    }
}
