package com.liveodds.push.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import com.liveodds.push.LiveoddsPush;
import com.liveodds.push.delivery.PartnerBeans;
import com.liveodds.push.delivery.PartnerDirectory;
import com.liveodds.push.source.kafka.KafkaPartitions;
import org.apache.camel.CamelContext;
import org.apache.camel.main.Main;
import org.apache.camel.util.FileUtil;

/**
 * The whole service, started in this JVM exactly as the jar starts it (same Main, same application.properties and
 * routes/), with settings on top and its own folders and ports, so tests see what a user sees.
 */
public final class RunningService implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final Main main;
    private final Path work;
    private final boolean ownsWork;
    private final Map<String, String> settings;

    private RunningService(Main main, Path work, boolean ownsWork, Map<String, String> settings) {
        this.main = main;
        this.work = work;
        this.ownsWork = ownsWork;
        this.settings = settings;
    }

    public static Builder builder() {
        return new Builder();
    }

    public CamelContext context() {
        return main.getCamelContext();
    }

    public <T> T bean(String name, Class<T> type) {
        return context().getRegistry().lookupByNameAndType(name, type);
    }

    /** The beans of partner {@code name} of liveodds.partners (empty: the single partner), as its routes have them. */
    public PartnerBeans partner(String name) {
        return bean("liveoddsPartnerDirectory", PartnerDirectory.class).of(name).orElseThrow();
    }

    /** The Kafka source's partitions of partner {@code name} (empty: the single partner), a bean of its source route's. */
    public KafkaPartitions kafkaPartitions(String name) {
        return (KafkaPartitions) partner(name).sourceBeans().get("kafkaPartitions");
    }

    public String setting(String key) {
        return settings.get(key);
    }

    public int serverPort() {
        return Integer.parseInt(settings.get("camel.server.port"));
    }

    public int managementPort() {
        return Integer.parseInt(settings.get("camel.management.port"));
    }

    public Path inbox() {
        return Path.of(settings.get("liveodds.source.file.dir"));
    }

    public Path done() {
        return inbox().resolve(".done");
    }

    public Path deadLetters() {
        return Path.of(settings.get("liveodds.dead-letter.dir"));
    }

    public Path work() {
        return work;
    }

    /** Drops one upstream message into the file source as producers must: written hidden, then renamed. */
    public Path drop(String fileName, String body) {
        return drop(inbox(), fileName, body);
    }

    /** The same into any inbox (a service running in another process). */
    public static Path drop(Path inbox, String fileName, String body) {
        try {
            Files.createDirectories(inbox);
            Path tmp = inbox.resolve("." + fileName + ".tmp");
            Files.writeString(tmp, body, StandardCharsets.UTF_8);
            return Files.move(tmp, inbox.resolve(fileName), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The dead letters as JSON, in no particular order. */
    public List<JsonNode> deadLetterEntries() throws IOException {
        ObjectMapper json = new ObjectMapper();
        try (Stream<Path> files = Files.list(deadLetters())) {
            return files.filter(p -> !p.getFileName().toString().startsWith(".")).map(p -> {
                try {
                    return json.readTree(p.toFile());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).toList();
        }
    }

    /** A request to the API port (fixtures, HTTP source, admin); {@code authorization} may be null. */
    public HttpResponse<String> request(String method, String path, String authorization) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A GET on the management port, e.g. {@code /observe/health}. */
    public HttpResponse<String> management(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    public long deadLetterCount() {
        try (var files = Files.list(deadLetters())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".json") && !p.getFileName().toString().startsWith(".")).count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Stops the service, and removes its folders when this made them (a test that gave {@link Builder#work} owns its own). */
    @Override
    public void close() {
        try {
            main.stop();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        } finally {
            if (ownsWork) {
                FileUtil.removeDir(work.toFile());
            }
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static final class Builder {
        private final Map<String, String> settings = new LinkedHashMap<>();
        private final java.util.Set<String> unset = new java.util.HashSet<>();
        private Path work;

        /** A partner on loopback: base URL for pushes and the auth URL of its token endpoint. */
        public Builder partner(String baseUrl, String authUrl) {
            settings.put("liveodds.partner.id", "42");
            settings.put("liveodds.partner.base-url", baseUrl);
            settings.put("liveodds.partner.auth-url", authUrl);
            settings.put("liveodds.partner.client-id", "push-client");
            settings.put("liveodds.partner.client-secret", "s3cr3t-value");
            return this;
        }

        /** Partner {@code name} of liveodds.partners (contract 16), on loopback, with its own client id and secret. */
        public Builder partner(String name, String id, String baseUrl, String authUrl) {
            settings.merge("liveodds.partners", name, (a, b) -> a + "," + b);
            String key = "liveodds.partners." + name + ".";
            settings.put(key + "id", id);
            settings.put(key + "base-url", baseUrl);
            settings.put(key + "auth-url", authUrl);
            settings.put(key + "client-id", "client-" + name);
            settings.put(key + "client-secret", "secret-of-" + name);
            return this;
        }

        public Builder set(String key, String value) {
            settings.put(key, value);
            return this;
        }

        /** Leaves a setting this builder would otherwise default (e.g. camel.server.host) to the service. */
        public Builder unset(String key) {
            unset.add(key);
            return this;
        }

        public Builder work(Path work) {
            this.work = work;
            return this;
        }

        public RunningService start() {
            Path dir = null;
            try {
                dir = work != null ? work : Files.createTempDirectory("liveodds-test");
                settings.putIfAbsent("liveodds.source.file.dir", dir.resolve("inbox").toString());
                settings.putIfAbsent("liveodds.dead-letter.dir", dir.resolve("dead-letter").toString());
                settings.putIfAbsent("liveodds.recovery.dir", dir.resolve("recovery").toString());
                settings.putIfAbsent("liveodds.partner.pause-file", dir.resolve("paused-partners.json").toString());
                settings.putIfAbsent("liveodds.sandbox.token-file", dir.resolve(".sandbox-token").toString());
                settings.putIfAbsent("camel.server.port", Integer.toString(freePort()));
                settings.putIfAbsent("camel.management.port", Integer.toString(freePort()));
                settings.putIfAbsent("camel.server.host", "127.0.0.1");
                settings.putIfAbsent("camel.main.shutdown-timeout", "5");
                settings.putIfAbsent("liveodds.source.file.poll-delay", "50");
                settings.keySet().removeAll(unset);
                Main main = LiveoddsPush.createMain(Path.of("").toAbsolutePath());
                settings.forEach(main::addOverrideProperty);
                main.start();
                return new RunningService(main, dir, work == null, settings);
            } catch (Exception e) {
                if (work == null && dir != null) {
                    FileUtil.removeDir(dir.toFile());
                }
                throw new IllegalStateException("service did not start: " + e.getMessage(), e);
            }
        }
    }
}
