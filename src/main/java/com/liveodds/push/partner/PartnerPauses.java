package com.liveodds.push.partner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.ops.LogSafe;
import com.liveodds.push.ops.Meters;
import com.liveodds.push.settings.Durations;
import com.liveodds.push.settings.Timestamps;
import io.micrometer.core.instrument.Gauge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partners are paused (contract 24), bean {@code liveoddsPartnerPauses}: a paused partner gets no attempt (push,
 * heartbeat, recovery) and what it has not had waits with its source until it is resumed. This bean keeps the record
 * (on disk, {@code liveodds.partner.pause-file}, so a pause survives a restart), the gauge
 * {@code liveodds_partner_paused}, and the automatic pause of a partner that has failed for
 * {@code liveodds.partner.pause-after}; what a pause does to delivery and the sources is its listeners' (LiveoddsPartners).
 * <p>
 * The API for the rest of the bundle: {@link #pause}, {@link #resume}, {@link #isPaused}. Partners are named as in
 * {@code liveodds.partners}; the single partner of {@code liveodds.partner.*} is {@code ""}.
 */
public class PartnerPauses {

    /** Told after a partner was paused or resumed, under the bean's lock (one change at a time). */
    @FunctionalInterface
    public interface Listener {
        void changed(String partner, boolean paused) throws Exception;
    }

    /** Why and since when a partner is paused. */
    public record Pause(String reason, Instant since) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(PartnerPauses.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final Map<String, Partner> partners = new LinkedHashMap<>();
    private final Map<String, Pause> paused = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new ArrayList<>();
    private Duration pauseAfter = Duration.ZERO;

    /** @param file the record of the pauses ({@code liveodds.partner.pause-file}); read now, when it exists */
    public PartnerPauses(Path file) {
        this.file = file;
        load();
    }

    /** {@code liveodds.partner.pause-after}: a partner failing that long is paused; {@code 0} never. */
    public void setPauseAfter(Duration pauseAfter) {
        this.pauseAfter = pauseAfter;
    }

    /** A partner of the settings: its name ("" for the single partner), its partner id, its health and meters. */
    public synchronized void addPartner(String name, String id, PartnerHealth health, Meters meters) {
        partners.put(name, new Partner(name, id, health, meters));
    }

    public synchronized void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** The partner's name for a name of {@code liveodds.partners}, or the single partner's id; empty when none. */
    public synchronized Optional<String> find(String nameOrId) {
        if (nameOrId == null) {
            return Optional.empty();
        }
        if (!nameOrId.isEmpty() && partners.containsKey(nameOrId)) {
            return Optional.of(nameOrId);
        }
        Partner single = partners.get("");
        return single != null && single.id.equals(nameOrId) ? Optional.of("") : Optional.empty();
    }

    /** Whether the partner is paused. */
    public boolean isPaused(String partner) {
        return paused.containsKey(partner);
    }

    /** Why and since when the partner is paused, or null. */
    public Pause pauseOf(String partner) {
        return paused.get(partner);
    }

    /**
     * Pauses the partner (nothing changes when it is paused already): recorded on disk first, then its deliveries held.
     *
     * @return whether it was not paused before
     */
    public synchronized boolean pause(String partner, String reason) {
        known(partner);
        if (paused.containsKey(partner)) {
            return false;
        }
        Pause pause = new Pause(reason, Instant.now());
        Map<String, Pause> next = new LinkedHashMap<>(paused);
        next.put(partner, pause);
        save(next);
        paused.put(partner, pause);
        LOG.warn("Partner {} paused ({}): it gets nothing until it is resumed; what it has not had waits with its source",
                label(partner), LogSafe.escape(reason));
        tell(partner, true);
        return true;
    }

    /**
     * Resumes the partner (nothing changes when it is not paused): it gets what waited for it, in order, and its failures
     * are counted afresh.
     *
     * @return whether it was paused before
     */
    public synchronized boolean resume(String partner) {
        Partner p = known(partner);
        if (!paused.containsKey(partner)) {
            return false;
        }
        Map<String, Pause> next = new LinkedHashMap<>(paused);
        next.remove(partner);
        save(next);
        paused.remove(partner);
        p.health.resumed();
        LOG.info("Partner {} resumed: it gets what waited for it, in order", label(partner));
        tell(partner, false);
        return true;
    }

    /**
     * Pauses each partner that has failed for {@code liveodds.partner.pause-after} (routes/pauses.yaml, every second):
     * logged once, as every pause; the alert {@code LiveoddsPartnerPaused} then fires.
     */
    public void pauseFailing() {
        if (pauseAfter.isZero()) {
            return;
        }
        List<Partner> each;
        synchronized (this) {
            each = List.copyOf(partners.values());
        }
        for (Partner p : each) {
            Duration failing = p.health.failingFor();
            if (failing != null && failing.compareTo(pauseAfter) >= 0 && !isPaused(p.name)) {
                pause(p.name, "failing for " + Durations.format(pauseAfter) + " (liveodds.partner.pause-after); last error: "
                        + p.health.partner().lastError());
            }
        }
    }

    /** The gauge liveodds_partner_paused of each partner, 1 while paused: once, when the metrics registry exists. */
    public synchronized void registerGauges() {
        for (Partner p : partners.values()) {
            Gauge.builder("liveodds.partner.paused", this, pauses -> pauses.isPaused(p.name) ? 1 : 0)
                    .description("1 while the partner is paused (POST /admin/partners/{name}/resume ends it), else 0")
                    .tags(p.meters.tags()).register(p.meters.registry());
        }
    }

    private Partner known(String partner) {
        Partner p = partners.get(partner);
        if (p == null) {
            throw new IllegalArgumentException("no partner named " + LogSafe.escape(partner));
        }
        return p;
    }

    private void tell(String partner, boolean nowPaused) {
        for (Listener listener : listeners) {
            try {
                listener.changed(partner, nowPaused);
            } catch (Exception e) {
                LOG.error("Partner {} could not be {} everywhere: {}", label(partner), nowPaused ? "paused" : "resumed",
                        LogSafe.escape(String.valueOf(e.getMessage())), e);
            }
        }
    }

    private static String label(String partner) {
        return partner.isEmpty() ? "(the single partner)" : partner;
    }

    private void load() {
        if (!Files.exists(file)) {
            return;
        }
        try {
            JsonNode record = JSON.readTree(file.toFile());
            record.fields().forEachRemaining(entry -> paused.put(entry.getKey(), new Pause(
                    entry.getValue().path("reason").asText(""), Instant.parse(entry.getValue().path("since").asText()))));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read the partners' pauses from " + file + " (liveodds.partner.pause-file): "
                    + e.getMessage(), e);
        }
    }

    /** Written whole to a file beside it, forced to disk, then moved over the record: a crash leaves one or the other. */
    private void save(Map<String, Pause> pauses) {
        ObjectNode record = JSON.createObjectNode();
        pauses.forEach((partner, pause) -> record.putObject(partner).put("reason", pause.reason())
                .put("since", Timestamps.format(pause.since())));
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                out.write(ByteBuffer.wrap(record.toPrettyString().getBytes(StandardCharsets.UTF_8)));
                out.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
            try (FileChannel dir = FileChannel.open(file.toAbsolutePath().getParent(), StandardOpenOption.READ)) {
                dir.force(true);
            } catch (IOException e) {
                // a file system that cannot force a folder: the rename is as durable as it allows
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the partners' pauses to " + file, e);
        }
    }

    private record Partner(String name, String id, PartnerHealth health, Meters meters) {
    }
}
