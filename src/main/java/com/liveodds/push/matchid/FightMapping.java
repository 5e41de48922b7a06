package com.liveodds.push.matchid;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fight mapping CSV ({@code fight_id,match_id}), re-read whenever its modification time or size changes.
 * A file that cannot be read keeps the last good mapping in force.
 */
public class FightMapping {

    private static final Logger LOG = LoggerFactory.getLogger(FightMapping.class);
    private static final Pattern MATCH_ID = Pattern.compile("(?:match:)?(\\d+)");

    private final Path file;
    private volatile Snapshot snapshot = new Snapshot(null, -1, Map.of());

    public FightMapping(String file) {
        this.file = Path.of(file);
    }

    /** @return {@code match:<digits>} for the fight, if the mapping has it */
    public Optional<String> matchFor(String fightId) {
        return Optional.ofNullable(current().entries().get(fightId));
    }

    private Snapshot current() {
        Snapshot s = snapshot;
        FileTime modified;
        long size;
        try {
            modified = Files.getLastModifiedTime(file);
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            return s.modified() == null ? s : replace(new Snapshot(null, -1, Map.of()), "mapping file " + file + " is gone");
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
                return replace(new Snapshot(modified, size, parse(Files.readAllLines(file, StandardCharsets.UTF_8))),
                        "fight mapping " + file + " loaded");
            } catch (IOException | IllegalArgumentException e) {
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

    static Map<String, String> parse(List<String> lines) {
        Map<String, String> entries = new HashMap<>();
        int lineNo = 0;
        for (String line : lines) {
            lineNo++;
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            String[] cells = trimmed.split(",", -1);
            if (cells.length != 2) {
                throw new IllegalArgumentException("line " + lineNo + ": expected fight_id,match_id");
            }
            String fightId = cells[0].strip();
            String matchId = cells[1].strip();
            if (lineNo == firstDataLine(lines) && "fight_id".equalsIgnoreCase(fightId) && "match_id".equalsIgnoreCase(matchId)) {
                continue;
            }
            var m = MATCH_ID.matcher(matchId);
            if (fightId.isEmpty() || !m.matches()) {
                throw new IllegalArgumentException("line " + lineNo + ": '" + matchId + "' is not a match id (match:123 or 123)");
            }
            entries.put(fightId, "match:" + m.group(1));
        }
        return entries;
    }

    private static int firstDataLine(List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            String t = lines.get(i).strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                return i + 1;
            }
        }
        return -1;
    }

    private record Snapshot(FileTime modified, long size, Map<String, String> entries) {
    }
}
