package com.liveodds.push.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What Camel's own Micrometer instrumentation costs per exchange on a path shaped like a push (three routes, a few
 * endpoint sends, beans and a counter), with each part of {@code camel.metrics.*} on or off. Prints the CPU time and
 * the heap allocated per message on the sending thread (the direct routes run on it), best round of several: CPU
 * time, unlike wall time, holds up on a shared, loaded machine. Run with
 * {@code mvn -B test -Pbench -Dtest=CamelMetricsCostBench}.
 */
@Tag("bench")
class CamelMetricsCostBench {

    private static final int WARM_UP = 50_000;
    private static final int MESSAGES = 100_000;
    private static final int ROUNDS = 5;

    @Test
    void costPerExchange() throws Exception {
        Map<String, Map<String, String>> configs = new LinkedHashMap<>();
        configs.put("metrics off", Map.of("camel.metrics.enabled", "false"));
        configs.put("camel defaults (route policy + exchange notifier)", Map.of("camel.metrics.enabled", "true"));
        configs.put("exchange event notifier only", Map.of("camel.metrics.enabled", "true", "camel.metrics.enableRoutePolicy", "false"));
        configs.put("route policy only", Map.of("camel.metrics.enabled", "true", "camel.metrics.enableExchangeEventNotifier", "false"));
        configs.put("route policy (context level) only", Map.of("camel.metrics.enabled", "true",
                "camel.metrics.enableExchangeEventNotifier", "false", "camel.metrics.routePolicyLevel", "context"));
        configs.put("both off", Map.of("camel.metrics.enabled", "true", "camel.metrics.enableExchangeEventNotifier", "false",
                "camel.metrics.enableRoutePolicy", "false"));
        Map<String, double[]> results = new LinkedHashMap<>();
        for (int pass = 0; pass < 2; pass++) {
            // two passes in alternating order, so JIT and machine noise do not favour the first configuration
            List<String> order = new ArrayList<>(configs.keySet());
            if (pass == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                double[] cost = measure(configs.get(name));
                results.merge(name, cost, (a, b) -> new double[] {Math.min(a[0], b[0]), Math.min(a[1], b[1])});
            }
        }
        double[] base = results.get("metrics off");
        results.forEach((name, cost) -> System.out.printf("camel metrics cost: %-50s %7.0f ns CPU/message (+%6.0f), %6.0f B/message (+%5.0f)%n",
                name, cost[0], cost[0] - base[0], cost[1], cost[1] - base[1]));
    }

    /** CPU nanoseconds and allocated bytes per message, best of the rounds. */
    private static double[] measure(Map<String, String> settings) throws Exception {
        Main main = new Main();
        settings.forEach(main::addOverrideProperty);
        main.addOverrideProperty("camel.main.name", "bench");
        main.configure().addRoutesBuilder(new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:ingest").routeId("ingest").setProperty("matchId", constant("match:1"))
                        .bean(Shape.class, "validate").to("direct:deliver");
                from("direct:deliver").routeId("deliver").bean(Shape.class, "prepare").to("direct:partner")
                        .bean(Shape.class, "judge").to("micrometer:counter:bench.delivered");
                from("direct:partner").routeId("partner").setHeader("CamelHttpResponseCode", constant(202));
            }
        });
        main.start();
        try {
            ProducerTemplate template = main.getCamelContext().createProducerTemplate();
            send(template, WARM_UP);
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long thread = Thread.currentThread().getId();
            double cpu = Double.MAX_VALUE;
            double bytes = Double.MAX_VALUE;
            for (int r = 0; r < ROUNDS; r++) {
                long cpuStart = threads.getCurrentThreadCpuTime();
                long bytesStart = threads.getThreadAllocatedBytes(thread);
                send(template, MESSAGES);
                cpu = Math.min(cpu, (threads.getCurrentThreadCpuTime() - cpuStart) / (double) MESSAGES);
                bytes = Math.min(bytes, (threads.getThreadAllocatedBytes(thread) - bytesStart) / (double) MESSAGES);
            }
            return new double[] {cpu, bytes};
        } finally {
            main.stop();
        }
    }

    private static void send(ProducerTemplate template, int count) {
        for (int i = 0; i < count; i++) {
            template.sendBody("direct:ingest", "{\"message_id\":\"m\"}");
        }
    }

    public static class Shape {
        public String validate(String body) {
            return body;
        }

        public String prepare(String body) {
            return body;
        }

        public boolean judge(String body) {
            return body.length() > 1;
        }
    }
}
