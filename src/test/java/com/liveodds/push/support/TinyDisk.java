package com.liveodds.push.support;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * A real small file system (tmpfs, mounted by root) that a test fills to the last byte and frees again, so that what
 * the service writes there fails as on a full disk (ENOSPC). Without the right to mount, the test is skipped locally
 * and fails on CI ({@code CI=true}, where the build runs as root).
 */
public final class TinyDisk implements AutoCloseable {

    private final Path dir;
    private final Path filler;

    private TinyDisk(Path dir) {
        this.dir = dir;
        this.filler = dir.resolve(".filler");
    }

    /** Mounts a tmpfs of {@code size} ({@code 1m}) on {@code dir}, made if missing. */
    public static TinyDisk mount(Path dir, String size) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        boolean mounted = run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString());
        if (!mounted && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI needs to mount a tmpfs (it runs as root): mount -t tmpfs failed on " + dir);
        }
        Assumptions.assumeTrue(mounted, "a tmpfs cannot be mounted here (not root?)");
        return new TinyDisk(dir);
    }

    public Path dir() {
        return dir;
    }

    /** Writes a file until the disk is full. */
    public void fill() throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException full) {
            // no space left on the device: what is written next fails the same way
        }
    }

    public void free() throws IOException {
        Files.deleteIfExists(filler);
    }

    /** Unmounts it (lazily: a file still open there does not keep it), leaving the empty folder. */
    @Override
    public void close() throws IOException, InterruptedException {
        run("umount", "-l", dir.toString());
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
    }
}
