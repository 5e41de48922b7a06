package com.liveodds.push.ingest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.liveodds.push.ops.LogSafe;
import com.liveodds.push.ops.Meters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fight mapping CSV ({@code fight_id,match_id}), re-read whenever its modification time or size changes.
 * A bad line is skipped and its fight rejected, the rest applies. A file that is missing, unreadable or has no valid
 * line keeps the last good mapping in force (contract section 11), logged once per change of the file and counted in
 * {@code liveodds_mapping_reload_failures_total}: a broken edit never sends a fight to the fallback match id. For the
 * same reason a fight whose line vanished from a file that has broken lines keeps its previous match id.
 */
public class FightMapping implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(FightMapping.class);
    private static final Pattern MATCH_ID = Pattern.compile("(?:match:)?(\\d+)");
    private static final Snapshot NONE = new Snapshot(null, -1, Map.of(), Set.of());

    private final Path file;
    private volatile Snapshot snapshot = NONE;
    /** The file state (time and size, or "gone") whose failure was last logged, so each change is logged once. */
    private volatile String failedState;
    private CamelContext camelContext;
    private volatile Meters meters;
    private volatile Counter reloadFailures;

    public FightMapping(String file) {
        this.file = Path.of(file);
    }

    /**
     * @return {@code match:<digits>} for the fight, if the mapping has it
     * @throws UnresolvableMatchException when the fight's line in the file is broken: the fallback id could be the
     *                                    wrong match, so the message is rejected until the line is fixed
     */
    public Optional<String> matchFor(String fightId) {
        Snapshot s = current();
        if (s.broken().contains(fightId)) {
            throw new UnresolvableMatchException("the fight mapping line of fight " + LogSafe.escape(fightId) + " is invalid");
        }
        return Optional.ofNullable(s.entries().get(fightId));
    }

    private Snapshot current() {
        Snapshot s = snapshot;
        FileTime modified;
        long size;
        try {
            modified = Files.getLastModifiedTime(file);
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            if (s != NONE) {
                failed("gone", "is missing");
            }
            return s;
        } catch (IOException e) {
            failed("unreadable", "cannot be read (" + e.getMessage() + ")");
            return s;
        }
        if (modified.equals(s.modified()) && size == s.size()) {
            if (failedState != null) {
                failedState = null; // the good file is back: its next failure is news again
            }
            return s;
        }
        synchronized (this) {
            Snapshot previous = snapshot;
            if (modified.equals(previous.modified()) && size == previous.size()) {
                return previous;
            }
            String state = modified + "/" + size;
            if (state.equals(failedState)) {
                return previous;
            }
            Snapshot next;
            try {
                next = parse(modified, size, Files.readAllLines(file, StandardCharsets.UTF_8), previous);
            } catch (IOException e) {
                failed(state, "cannot be read (" + e.getClass().getSimpleName() + ")");
                return previous;
            }
            if (next.entries().isEmpty()) {
                failed(state, "has no valid fight_id,match_id line");
                return previous;
            }
            failedState = null;
            snapshot = next;
            LOG.info("Fight mapping {} loaded ({} entries)", file, next.entries().size());
            return next;
        }
    }

    private synchronized void failed(String state, String why) {
        if (state.equals(failedState)) {
            return;
        }
        failedState = state;
        LOG.warn("Fight mapping {} {}: keeping the last good mapping ({} entries)", file, LogSafe.escape(why),
                snapshot.entries().size());
        reloadFailures().increment();
    }

    private Counter reloadFailures() {
        Counter counter = reloadFailures;
        if (counter == null) {
            MeterRegistry registry = Meters.orOf(meters, camelContext).registry();
            counter = Counter.builder("liveodds.mapping.reload.failures")
                    .description("Fight mapping reloads refused: file missing, unreadable or without a valid line").register(registry);
            reloadFailures = counter;
        }
        return counter;
    }

    /** Reload failures so far. */
    public double reloadFailureCount() {
        return reloadFailures().count();
    }

    /** The meter registry of the bundle (beans.yaml: {@code #bean:liveoddsMeters}). */
    public void setMeters(Meters meters) {
        this.meters = meters;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    /** Parses the file; a bad line is skipped with a warning, and the good ones still apply. */
    private static Snapshot parse(FileTime modified, long size, List<String> lines, Snapshot previous) {
        Map<String, String> entries = new HashMap<>();
        Set<String> broken = new HashSet<>();
        boolean firstDataLine = true;
        boolean badLines = false;
        for (int i = 0; i < lines.size(); i++) {
            String trimmed = lines.get(i).replace("\uFEFF", "").strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] cells = trimmed.split(",", -1);
            boolean header = firstDataLine && cells.length == 2
                    && "fight_id".equalsIgnoreCase(cells[0].strip()) && "match_id".equalsIgnoreCase(cells[1].strip());
            firstDataLine = false;
            if (header) {
                continue;
            }
            Matcher m = cells.length == 2 ? MATCH_ID.matcher(cells[1].strip()) : null;
            if (m == null || cells[0].isBlank() || !m.matches()) {
                LOG.warn("Fight mapping line {} skipped: expected fight_id,match_id with match_id as match:123 or 123", i + 1);
                badLines = true;
                if (cells.length == 2 && !cells[0].isBlank()) {
                    broken.add(cells[0].strip());
                }
                continue;
            }
            entries.put(cells[0].strip(), "match:" + m.group(1));
        }
        broken.removeAll(entries.keySet());
        if (badLines && !entries.isEmpty()) {
            previous.entries().forEach((fight, match) -> {
                if (!entries.containsKey(fight) && !broken.contains(fight)) {
                    LOG.warn("Fight mapping: fight {} vanished in an edit with bad lines; keeping its match id {}",
                            LogSafe.escape(fight), match);
                    entries.put(fight, match);
                }
            });
        }
        return new Snapshot(modified, size, entries, broken);
    }

    private record Snapshot(FileTime modified, long size, Map<String, String> entries, Set<String> broken) {
    }
}
