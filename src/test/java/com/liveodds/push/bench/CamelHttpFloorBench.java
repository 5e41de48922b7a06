package com.liveodds.push.bench;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.partner.PartnerTls;
import com.liveodds.push.support.RawPartner;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.model.ToDynamicDefinition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The floor under a push's cost that the design card sets: the CPU one POST costs the sending thread through
 * camel-http alone (the bundle's {@code liveoddsHttp}, configured by {@link PartnerHttp} as every partner's is), then
 * through a route with the push route's header and verdict steps around it, next to the raw client
 * ({@link PlainHttpConnection}) sending the same request, one keep-alive connection each, to the same loopback
 * receiver answering 202 ({@link RawPartner}). Only the sending thread's CPU is counted (the receiver runs on threads of
 * its own), best round of several, in alternating order. Run with
 * {@code mvn -B -o test -Dtest=CamelHttpFloorBench -Dtest.excludedGroups=none}, and with
 * {@code -DargLine=-XX:TieredStopAtLevel=1} for the JIT of the default launch.
 */
@Tag("bench")
class CamelHttpFloorBench {

    private static final int WARM_UP = 20_000;
    private static final int REQUESTS = 20_000;
    private static final int ROUNDS = 3;
    private static final byte[] BODY = ("{\"message_id\":\"m-000001\",\"match_id\":\"match:1\",\"message_type\":\"odds\","
            + "\"sent_at\":\"2026-11-27T10:00:00Z\",\"data\":{\"markets\":[{\"id\":\"winner\",\"selections\":[{\"id\":\"home\","
            + "\"odds\":1.85},{\"id\":\"away\",\"odds\":2.05}]}]}}").getBytes(StandardCharsets.UTF_8);
    private static final String PATH = "/v1/liveodds/42/match:1/odds";

    @Test
    void cpuPerRequest() throws Exception {
        try (RawPartner receiver = new RawPartner(RawPartner.status(202)).keepingNoRequests();
             DefaultCamelContext camel = new DefaultCamelContext()) {
            String base = receiver.baseUrl();
            camel.addComponent("liveoddsHttp", new PartnerHttp(new PartnerTls(), Duration.ofSeconds(10), 4).component());
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    // allowOptimisedComponents off, as in routes/delivery.yaml: liveoddsHttp has no EndpointUriFactory of its own
                    var push = from("direct:push").routeId("push")
                            .removeHeaders("*", "CamelLiveodds*")
                            .setHeader("Authorization", simple("Bearer ${variable.token}"))
                            .setHeader("Content-Type", constant("application/json"))
                            .setHeader("Idempotency-Key", variable("messageId"))
                            .setHeader(Exchange.HTTP_PATH, simple("/v1/liveodds/42/${variable.matchId}/odds"));
                    var send = new ToDynamicDefinition("liveoddsHttp:" + base + "?httpMethod=POST&throwExceptionOnFailure=false");
                    send.setAllowOptimisedComponents("false");
                    push.addOutput(send);
                    push
                            .choice()
                            .when(simple("${header.CamelHttpResponseCode} range '200..299'")).setVariable("verdict", constant("delivered"))
                            .otherwise().setVariable("verdict", constant("other"))
                            .end()
                            .removeHeaders("*", "Camel*");
                }
            });
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            PlainHttpConnection raw = new PlainHttpConnection(URI.create(base));
            Map<String, Sender> senders = new LinkedHashMap<>();
            Map<String, String> headers = Map.of("Authorization", "Bearer t0k3n", "Content-Type", "application/json",
                    "Idempotency-Key", "m-000001");
            senders.put("raw client (plain socket)", () -> check(raw.post(PATH, headers, BODY).status()));
            String endpoint = "liveoddsHttp:" + base + "?httpMethod=POST&throwExceptionOnFailure=false";
            senders.put("camel-http alone (liveoddsHttp)", () -> {
                Exchange done = template.send(endpoint, e -> {
                    e.getMessage().setHeaders(new LinkedHashMap<>(headers));
                    e.getMessage().setHeader(Exchange.HTTP_PATH, PATH);
                    e.getMessage().setBody(BODY);
                });
                answered(done);
            });
            senders.put("camel-http in the push route's steps", () -> answered(template.send("direct:push", e -> {
                e.setVariable("token", "t0k3n");
                e.setVariable("messageId", "m-000001");
                e.setVariable("matchId", "match:1");
                e.getMessage().setBody(BODY);
            })));
            Map<String, Double> best = new LinkedHashMap<>();
            for (Map.Entry<String, Sender> s : senders.entrySet()) {
                run(s.getValue(), WARM_UP);
            }
            for (int round = 0; round < ROUNDS; round++) {
                // alternating order: neither the JIT nor the machine's noise favours the first sender
                List<String> order = new ArrayList<>(senders.keySet());
                if (round % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String name : order) {
                    best.merge(name, cpuMicrosPerRequest(senders.get(name)), Math::min);
                }
            }
            double rawCost = best.get("raw client (plain socket)");
            best.forEach((name, micros) -> System.out.printf(Locale.ROOT, "camel-http floor: %-40s %7.1f µs CPU/request  %5.1f× raw%n",
                    name, micros, micros / rawCost));
            raw.close();
        }
    }

    private interface Sender {
        void send() throws Exception;
    }

    private static void answered(Exchange done) {
        if (done.getException() != null) {
            throw new IllegalStateException(done.getException());
        }
        // as PartnerAnswer reads it
        if (done.getMessage().getBody() != null) {
            done.getMessage().getBody(byte[].class);
        }
        check(done.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class));
    }

    private static void check(Integer status) {
        if (status == null || status != 202) {
            throw new IllegalStateException("answered " + status);
        }
    }

    private static void run(Sender sender, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            sender.send();
        }
    }

    private static double cpuMicrosPerRequest(Sender sender) throws Exception {
        var threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        run(sender, REQUESTS);
        return (threads.getCurrentThreadCpuTime() - start) / 1e3 / REQUESTS;
    }
}
