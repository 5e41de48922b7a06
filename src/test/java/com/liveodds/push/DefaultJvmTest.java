package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar} with no JVM option of the operator's runs the service in a child JVM with the measured default
 * options, and the two stay one service to whoever started it: SIGTERM reaches the service and the exit code comes
 * back (a service that died ends the launched JVM with its failing status), and a parent killed outright leaves no
 * service running.
 */
class DefaultJvmTest {

    @TempDir
    Path work;
    private Process parent;

    @AfterEach
    void stop() {
        if (parent != null) {
            parent.descendants().forEach(ProcessHandle::destroyForcibly);
            parent.destroyForcibly();
        }
    }

    @Test
    void sigtermToTheLaunchedJvmStopsTheTunedServiceAndReturnsItsExitCode() throws Exception {
        ProcessHandle service = launch();

        parent.destroy();

        assertThat(parent.waitFor(40, TimeUnit.SECONDS)).as("the launched JVM exits after SIGTERM").isTrue();
        assertThat(parent.exitValue()).as("the service's exit code after SIGTERM").isEqualTo(143);
        assertThat(service.isAlive()).isFalse();
        assertThat(Files.readString(work.resolve("launch.log"))).contains("Apache Camel").contains("shutdown");
    }

    @Test
    void aServiceThatEndsOnItsOwnEndsTheLaunchedJvmWithAFailingStatus() throws Exception {
        ProcessHandle service = launch();
        assertThat(service.info().arguments().map(List::of).orElse(List.of()))
                .as("a service out of memory exits at once").contains("-XX:+ExitOnOutOfMemoryError");
        assertThat(Files.readString(Path.of("/proc/" + service.pid() + "/environ")).split("\0"))
                .as("the service's glibc keeps few malloc arenas").contains("MALLOC_ARENA_MAX=2");

        // ended without a shutdown, as the JVM ends itself on an OutOfMemoryError
        service.destroyForcibly();

        assertThat(parent.waitFor(40, TimeUnit.SECONDS)).as("the launched JVM does not outlive its service").isTrue();
        assertThat(parent.exitValue()).as("the supervisor sees the service's failure: restart").isEqualTo(137);
    }

    @Test
    void killingTheLaunchedJvmOutrightLeavesNoServiceRunning() throws Exception {
        ProcessHandle service = launch();

        parent.destroyForcibly();

        await().atMost(Duration.ofSeconds(40)).until(() -> !service.isAlive());
    }

    @Test
    void theContainerAndTheDocsGiveTheDefaultLaunchsOptions() throws IOException {
        String dockerfile = Files.readString(Path.of("Dockerfile")).replace("\\\n", " ");
        Matcher entrypoint = Pattern.compile("(?m)^ENTRYPOINT \\[\"java\", (.*), \"-jar\", \"liveodds-push.jar\"\\]$")
                .matcher(dockerfile);
        assertThat(entrypoint.find()).as("the Dockerfile's ENTRYPOINT runs java -jar").isTrue();
        assertThat(List.of(entrypoint.group(1).replace("\"", "").split(",\\s+"))).isEqualTo(DefaultJvm.OPTIONS);
        DefaultJvm.ENVIRONMENT.forEach((name, value) -> assertThat(dockerfile).contains(name + "=" + value));

        String operations = Files.readString(Path.of("docs/operations.md")).replaceAll("\\s+", " ");
        assertThat(operations).contains("`" + String.join(" ", DefaultJvm.OPTIONS) + "`");
    }

    /** Starts java -D... -jar (a jar that names the test class path) and returns the service's process once it is live. */
    private ProcessHandle launch() throws IOException {
        Map<String, String> settings = ServiceProcess.settings("http://127.0.0.1:9", "http://127.0.0.1:9", work);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java));
        settings.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(List.of("-jar", runnableJar().toString()));
        parent = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(work.resolve("launch.log").toFile())).start();
        URI live = URI.create("http://127.0.0.1:" + settings.get("camel.management.port") + "/observe/health/live");
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> ServiceProcess.answersOk(live));
        Optional<ProcessHandle> child = parent.descendants().filter(p -> p.info().arguments()
                .map(List::of).orElse(List.of()).containsAll(DefaultJvm.OPTIONS)).findFirst();
        assertThat(child).as("a child JVM with the default options runs the service").isPresent();
        return child.get();
    }

    /** A jar with only a manifest: LiveoddsPush as its main class, this test's class path as its Class-Path. */
    private Path runnableJar() throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, LiveoddsPush.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(entry -> Path.of(entry).toUri().toString()).collect(Collectors.joining(" ")));
        Path jar = work.resolve("liveodds-push.jar");
        try (OutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.flush();
        }
        return jar;
    }
}
