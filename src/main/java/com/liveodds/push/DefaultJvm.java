package com.liveodds.push;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListener;
import org.apache.camel.main.MainListenerSupport;

/**
 * The runnable jar's JVM settings. A manifest cannot carry JVM options, so {@code java -jar liveodds-push.jar} started
 * with no {@code -X...} option of its own runs the service in a child JVM started once with {@link #OPTIONS}, and stays
 * beside it only to pass signals on: a SIGTERM to it reaches the service, it exits with the service's exit code (so a
 * service that ended on its own, out of memory or killed, ends it with a non-zero status its supervisor sees), and
 * when it is killed outright (SIGKILL) the service stops too (the child's stdin, a pipe from this JVM, ends). Any
 * {@code -X} option, agent or debugger given on the command line means the operator chose: the JVM runs the service
 * itself, as the Dockerfile's ENTRYPOINT does with the same options.
 */
final class DefaultJvm {

    /**
     * Measured with DeliveryBench (docs/benchmarks.md, "The default launch"): the contract's 384 MB heap, starting at
     * 192 MB with a fixed 96 MB young generation (it grows as the backlog needs and is given back when it shrinks):
     * the pushes in hand live some hundred milliseconds, and a young generation sized by the free ratios alone (a third
     * of a heap held small) promoted them, so the old one filled and was collected whole every few seconds; the serial
     * collector (no concurrent collector threads, a small footprint); the JVM's own tiered JIT at its own inlining
     * depth: with the sources reading ahead no further than delivery needs, its compilations end in the warm-up, and
     * steady state costs less CPU than at JDK 11's depth (contract 23: judged after a warm-up); a small thread stack.
     * And a JVM out of memory exits at once with status 3 (contract 22): an OutOfMemoryError leaves every thread of the
     * JVM in doubt, so the service does not go on half-dead; its supervisor restarts it and its sources deliver again
     * what they had not acknowledged.
     */
    static final List<String> OPTIONS = List.of("-Xms192m", "-Xmx384m", "-Xmn96m", "-XX:+UseSerialGC", "-XX:MaxHeapFreeRatio=30",
            "-XX:MinHeapFreeRatio=10", "-Xss512k", "-XX:+ExitOnOutOfMemoryError");
    /**
     * The child's glibc keeps two malloc arenas, not eight per core: the JIT, Netty and SQLite allocate off-heap from
     * hundreds of threads, and each arena they touch stays in the RSS (10 to 30 MB less in the JMS bench).
     */
    static final Map<String, String> ENVIRONMENT = Map.of("MALLOC_ARENA_MAX", "2");
    /** Set on the child: it runs the service and stops when its parent is gone. */
    private static final String CHILD = "liveodds.jvm.child";

    private DefaultJvm() {
    }

    /**
     * Runs the service in a child JVM with {@link #OPTIONS} when this JVM is an untuned {@code java -jar}; returns the
     * child's exit code, or -1 when this JVM runs the service itself (the child among them: see {@link #parentWatch()}).
     */
    static int relaunchIfUntuned(String[] args) throws IOException, InterruptedException {
        if (Boolean.getBoolean(CHILD)) {
            return -1;
        }
        List<String> jvmArguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        Path jar = runnableJar();
        if (jar == null || !untuned(jvmArguments)) {
            return -1;
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(OPTIONS);
        command.addAll(jvmArguments);
        command.add("-D" + CHILD + "=true");
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        ProcessBuilder launch = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        // what the operator set in the environment wins
        ENVIRONMENT.forEach(launch.environment()::putIfAbsent);
        Process child = launch.start();
        // SIGTERM (or Ctrl-C) to this JVM: the service gets it too and ends as it would alone; this JVM then exits with its code
        // (a JVM shutdown hook, and this launcher JVM runs no CamelContext: no ExecutorServiceManager to ask)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            child.destroy();
            try {
                Runtime.getRuntime().halt(child.waitFor());
            } catch (InterruptedException e) {
                Runtime.getRuntime().halt(143);
            }
        }, "liveodds-forward-signal"));
        return child.waitFor();
    }

    /** Nothing but the JVM's own options (system properties) given: the default launch. */
    static boolean untuned(List<String> jvmArguments) {
        return jvmArguments.stream().noneMatch(a -> a.startsWith("-X") || a.startsWith("-agent") || a.startsWith("-javaagent"));
    }

    /** The jar the JVM was started on as {@code java -jar <jar>}; null when it was started otherwise (tests, camel:run). */
    private static Path runnableJar() {
        String classPath = System.getProperty("java.class.path", "");
        String command = System.getProperty("sun.java.command", "");
        boolean javaJar = classPath.endsWith(".jar") && !classPath.contains(File.pathSeparator) && command.startsWith(classPath);
        return javaJar ? Path.of(classPath).toAbsolutePath() : null;
    }

    /**
     * In a child this launcher started, a listener that watches for the parent's end once the CamelContext exists, on a
     * thread of its ExecutorServiceManager: the parent holds the write end of our stdin, and when it ends, however it
     * ended, the service stops as on SIGTERM. A parent gone before the watch starts left the pipe at its end: the watch
     * sees it at once. Null in any other JVM.
     */
    static MainListener parentWatch() {
        if (!Boolean.getBoolean(CHILD)) {
            return null;
        }
        return new MainListenerSupport() {
            @Override
            public void beforeConfigure(BaseMainSupport main) {
                // not an executor: a read of stdin cannot be interrupted, so a pool would hold the context's shutdown
                Thread watch = main.getCamelContext().getExecutorServiceManager().newThread("liveodds-parent-watch",
                        DefaultJvm::exitWhenParentEnds);
                watch.setDaemon(true);
                watch.start();
            }
        };
    }

    private static void exitWhenParentEnds() {
        try (InputStream parent = System.in) {
            while (parent.read() >= 0) {
                // the parent writes nothing: read until it is gone
            }
        } catch (IOException e) {
            // the pipe broke: the parent is gone as well
        }
        System.exit(143);
    }
}
