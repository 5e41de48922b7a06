package com.liveodds.push.bench;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.liveodds.push.support.ServiceProcess;

import static org.awaitility.Awaitility.await;

/**
 * The built jar as an operator runs it: {@code java [-Xmx..] -D... -jar target/liveodds-push.jar} in a process of
 * its own, from the project folder (its {@code application.properties} and {@code routes/}; {@code -Dbench.home} names
 * another one, such as a copy taken with a saved jar before a change), logging to a file.
 */
final class ServiceUnderTest implements AutoCloseable {

    private final Process process;
    private final Thread killOnExit;

    private ServiceUnderTest(Process process) {
        this.process = process;
        // a bench JVM stopped from outside (Ctrl-C, SIGTERM) must not leave the service running
        this.killOnExit = new Thread(process::destroyForcibly, "bench-service-kill");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts the jar with the given JVM options (none: the default launch, as an operator runs it) and waits until
     * {@code /observe/health} answers 200 (routes and source up).
     */
    static ServiceUnderTest start(Path jar, List<String> jvmOptions, Map<String, String> settings, Path log) throws IOException {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build it first (mvn -B verify -Pbench packages it)");
        }
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(jvmOptions);
        settings.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
        Process process = new ProcessBuilder(command).directory(Path.of(System.getProperty("bench.home", "")).toAbsolutePath().toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        ServiceUnderTest service = new ServiceUnderTest(process);
        URI health = URI.create("http://127.0.0.1:" + settings.get("camel.management.port") + "/observe/health");
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("service exited with " + process.exitValue() + "; log: " + log);
                }
                return ServiceProcess.answersOk(health);
            });
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
        return service;
    }

    ProcessHandle handle() {
        return process.toHandle();
    }

    /**
     * Peak resident set size so far (VmHWM) in KiB of the process and the processes it started: the default launch
     * runs the service in a child JVM beside the one the operator started.
     */
    long peakRssKiB() {
        return Stream.concat(Stream.of(process.toHandle()), process.descendants())
                .mapToLong(p -> peakRssKiB(Long.toString(p.pid()))).sum();
    }

    /** VmHWM of /proc/{pid}/status in KiB ({@code self} for this JVM). */
    static long peakRssKiB(String pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGTERM, as an operator stops it; killed if it does not exit within 30 s. */
    @Override
    public void close() {
        Runtime.getRuntime().removeShutdownHook(killOnExit);
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
