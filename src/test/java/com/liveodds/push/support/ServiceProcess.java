package com.liveodds.push.support;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.LiveoddsPush;

/** The service in a process of its own, as an operator runs it, so a test can kill it hard or send it SIGTERM. */
public final class ServiceProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final Path log;

    private ServiceProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Settings of a service process against a partner on loopback, with its own folders under {@code work} and free
     * ports on 127.0.0.1; tests put theirs on top. Its temporary files go under {@code work} too, so that what a
     * process killed outright leaves there goes with the test's folder.
     */
    public static Map<String, String> settings(String baseUrl, String authUrl, Path work) {
        Map<String, String> s = new java.util.LinkedHashMap<>();
        try {
            s.put("java.io.tmpdir", Files.createDirectories(work.resolve("tmp")).toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        s.put("liveodds.partner.id", "42");
        s.put("liveodds.partner.base-url", baseUrl);
        s.put("liveodds.partner.auth-url", authUrl);
        s.put("liveodds.partner.client-id", "c");
        s.put("liveodds.partner.client-secret", "s");
        s.put("liveodds.source.file.dir", work.resolve("inbox").toString());
        s.put("liveodds.source.file.poll-delay", "50");
        s.put("liveodds.dead-letter.dir", work.resolve("dead-letter").toString());
        s.put("liveodds.recovery.dir", work.resolve("recovery").toString());
        s.put("liveodds.partner.pause-file", work.resolve("paused-partners.json").toString());
        s.put("camel.server.host", "127.0.0.1");
        s.put("camel.server.port", Integer.toString(RunningService.freePort()));
        s.put("camel.management.port", Integer.toString(RunningService.freePort()));
        return s;
    }

    public static ServiceProcess start(Map<String, String> settings, Path log) {
        return start(settings, Map.of(), log, suiteOptions("512m"));
    }

    /** With environment variables on top of this JVM's (LIVEODDS_... settings). */
    public static ServiceProcess start(Map<String, String> settings, Map<String, String> environment, Path log) {
        return start(settings, environment, log, suiteOptions("512m"));
    }

    /** With the given maximum heap alone ({@code 384m}: the contract's memory bound, the JVM's own collector and JIT). */
    public static ServiceProcess start(Map<String, String> settings, Path log, String maxHeap) {
        return start(settings, Map.of(), log, List.of("-Xmx" + maxHeap));
    }

    /** With these JVM options (the default launch's, say). */
    public static ServiceProcess start(Map<String, String> settings, Path log, List<String> jvmOptions) {
        return start(settings, Map.of(), log, jvmOptions);
    }

    /**
     * As a service account runs it, bound by file permissions: when this JVM is root, the process keeps root's user
     * but loses the capabilities that let root read and search any file ({@code setpriv}, util-linux).
     */
    public static ServiceProcess startUnprivileged(Map<String, String> settings, Path log) {
        List<String> prefix = isRoot() ? List.of("setpriv", "--bounding-set=-dac_override,-dac_read_search",
                "--inh-caps=-dac_override,-dac_read_search") : List.of();
        return start(prefix, settings, Map.of(), log, suiteOptions("512m"));
    }

    private static boolean isRoot() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A maximum heap, and the JIT and collector of the suite's own test JVMs (the pom's argLine): a test's service is
     * short-lived too.
     */
    private static List<String> suiteOptions(String maxHeap) {
        List<String> options = new ArrayList<>(List.of("-Xmx" + maxHeap));
        for (String option : System.getProperty("test.jvm.options", "").trim().split("\\s+")) {
            if (!option.isEmpty()) {
                options.add(option);
            }
        }
        return options;
    }

    private static ServiceProcess start(Map<String, String> settings, Map<String, String> environment, Path log,
            List<String> jvmOptions) {
        return start(List.of(), settings, environment, log, jvmOptions);
    }

    private static ServiceProcess start(List<String> prefix, Map<String, String> settings, Map<String, String> environment,
            Path log, List<String> jvmOptions) {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(prefix);
        command.add(java);
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path")));
        settings.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add(LiveoddsPush.class.getName());
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new ServiceProcess(process, log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether a GET of the URI answers 200 now: false while nothing listens there yet. */
    public static boolean answersOk(URI uri) {
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Waits until the liveness check on this management port answers 200, each try bounded so that a connection the
     * server accepts but has not yet served cannot hold the wait; fails at once, with the log, if the process exits.
     */
    public void awaitLive(int managementPort, Duration atMost) {
        URI live = URI.create("http://127.0.0.1:" + managementPort + "/observe/health/live");
        await("the service live on port " + managementPort).atMost(atMost)
                .pollInterval(Duration.ofMillis(200)).until(() -> {
                    if (!process.isAlive()) {
                        throw new AssertionError("the service exited with " + process.exitValue() + " before it was live:\n" + log());
                    }
                    return answersOk(live);
                });
    }

    /** SIGKILL: no shutdown hook, nothing flushed, as in a crash. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, as an orchestrator stops a container; returns how long the process took to exit. */
    public Duration terminate(Duration atMost) throws InterruptedException {
        long start = System.nanoTime();
        process.destroy();
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("service did not exit within " + atMost + " after SIGTERM; log: " + log);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit status of a process that has ended (as a supervisor sees it). */
    public int exitValue() {
        return process.exitValue();
    }

    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
