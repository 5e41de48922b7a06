package com.liveodds.push.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
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

    private final Process process;
    private final Path log;

    private ServiceProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    public static ServiceProcess start(Map<String, String> settings, Path log) {
        return start(settings, Map.of(), log, "512m");
    }

    /** With environment variables on top of this JVM's (LIVEODDS_... settings). */
    public static ServiceProcess start(Map<String, String> settings, Map<String, String> environment, Path log) {
        return start(settings, environment, log, "512m");
    }

    /** With the given maximum heap ({@code 384m}: the contract's memory bound). */
    public static ServiceProcess start(Map<String, String> settings, Path log, String maxHeap) {
        return start(settings, Map.of(), log, maxHeap);
    }

    private static ServiceProcess start(Map<String, String> settings, Map<String, String> environment, Path log, String maxHeap) {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "-cp", System.getProperty("java.class.path")));
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
