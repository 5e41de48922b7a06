package com.liveodds.push.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.partner.PartnerClient;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerTls;
import com.liveodds.push.support.RawPartner;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Throughput and CPU per push of the partner client against a raw keep-alive partner on loopback that answers 202 at
 * once (partner and client share the machine). Prints pushes/s and the CPU time the client's own threads (and the JDK
 * client's selector thread) spent per push. {@code -Dbench.pushes=50000}, {@code -Dbench.in-flight=256}.
 */
@Tag("bench")
class PartnerClientBench {

    @Test
    void pushesPerSecond() {
        int pushes = Integer.getInteger("bench.pushes", 50_000);
        int inFlight = Integer.getInteger("bench.in-flight", 256);
        byte[] body = ("{\"message_id\":\"m\",\"message_type\":\"odds\",\"odds_type\":\"delta\",\"timestamp\":\"2026-11-21T20:15:03.123Z\","
                + "\"fight_metadata\":{\"fight_id_sr\":\"match:41234567\"},\"markets\":[]}").getBytes(StandardCharsets.UTF_8);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (RawPartner partner = new RawPartner(RawPartner.status(202))) {
            PartnerClient client = new PartnerClient(partner.baseUrl(), Duration.ofSeconds(10), inFlight, new PartnerTls(),
                    new PartnerHealth());
            client.setMeterRegistry(new SimpleMeterRegistry());
            run(client, 5_000, body); // warm-up
            long cpuBefore = clientCpu(threads);
            long started = System.nanoTime();
            run(client, pushes, body);
            long elapsed = System.nanoTime() - started;
            long cpu = clientCpu(threads) - cpuBefore;
            System.out.printf("PartnerClientBench: %d pushes, max-in-flight %d: %.0f pushes/s, client CPU %.1f us/push%n",
                    pushes, inFlight, pushes / (elapsed / 1e9), cpu / 1e3 / pushes);
            client.stop();
        }
    }

    private static void run(PartnerClient client, int pushes, byte[] body) {
        CompletableFuture<?>[] answers = new CompletableFuture<?>[pushes];
        for (int i = 0; i < pushes; i++) {
            answers[i] = client.post("v1/liveodds/42/match:" + (i % 1000) + "/odds", "Bearer tok", "m-" + i, body);
        }
        CompletableFuture.allOf(answers).orTimeout(5, TimeUnit.MINUTES).join();
    }

    /** CPU of the threads that work for the client: its pool, its deadlines, the JDK client's selector, and this one. */
    private static long clientCpu(ThreadMXBean threads) {
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (name.startsWith("liveodds-partner") || name.contains("SelectorManager") || t == Thread.currentThread()) {
                long cpu = threads.getThreadCpuTime(t.getId());
                total += Math.max(cpu, 0);
            }
        }
        return total;
    }
}
