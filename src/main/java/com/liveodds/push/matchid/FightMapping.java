package com.liveodds.push.matchid;

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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fight mapping CSV ({@code fight_id,match_id}), re-read whenever its modification time or size changes.
 * A file that cannot be read keeps the last good mapping in force; a bad line is skipped, the rest applies.
 */
public class FightMapping {

    private static final Logger LOG = LoggerFactory.getLogger(FightMapping.class);
    private static final Pattern MATCH_ID = Pattern.compile("(?:match:)?(\\d+)");

    private final Path file;
    private volatile Snapshot snapshot = new Snapshot(null, -1, Map.of(), Set.of());

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
            throw new UnresolvableMatchException("the fight mapping line of fight " + fightId + " is invalid");
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
            return s.modified() == null ? s : replace(new Snapshot(null, -1, Map.of(), Set.of()), "mapping file " + file + " is gone");
        } catch (IOException e) {
            return s;
        }
        if (modified.equals(s.modified()) && size == s.size()) {
            return s;
        }
        synchronized (this) {
            if (modified.equals(snapshot.modified()) && size == snapshot.size()) {
                return snapshot;
            }
            try {
                return replace(parse(modified, size, Files.readAllLines(file, StandardCharsets.UTF_8)),
                        "fight mapping " + file + " loaded");
            } catch (IOException e) {
                LOG.warn("Fight mapping {} not reloaded, keeping the previous one: {}", file, e.getMessage());
                return snapshot;
            }
        }
    }

    private Snapshot replace(Snapshot next, String why) {
        snapshot = next;
        LOG.info("{} ({} entries)", why, next.entries().size());
        return next;
    }

    /** Parses the file; a bad line is skipped with a warning, and the good ones still apply. */
    private static Snapshot parse(FileTime modified, long size, List<String> lines) {
        Map<String, String> entries = new HashMap<>();
        Set<String> broken = new HashSet<>();
        boolean firstDataLine = true;
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
                if (cells.length == 2 && !cells[0].isBlank()) {
                    broken.add(cells[0].strip());
                }
                continue;
            }
            entries.put(cells[0].strip(), "match:" + m.group(1));
        }
        broken.removeAll(entries.keySet());
        return new Snapshot(modified, size, entries, broken);
    }

    private record Snapshot(FileTime modified, long size, Map<String, String> entries, Set<String> broken) {
    }
}
