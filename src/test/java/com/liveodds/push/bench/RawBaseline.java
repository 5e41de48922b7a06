package com.liveodds.push.bench;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The raw HTTP client baseline: what a bare {@code java.net.http.HttpClient} (async) achieves against the same
 * partner under the rule the service must keep, one push in flight per match and at most {@code maxInFlight} in all,
 * with the same token, headers and bodies. A refused push is retried with a doubling back-off (250 ms to 30 s), so
 * it holds back its own match only. No validation, no dead letters, no acknowledgement: an upper bound. In the
 * fan-out, one of these per partner (its own client, token and limit, as the service has) gets every message.
 */
final class RawBaseline implements AutoCloseable {

    private static final Pattern ACCESS_TOKEN = Pattern.compile("\"access_token\"\\s*:\\s*\"([^\"]+)\"");

    /** The body is made when the push is sent, so a long backlog holds no bodies (as a source holds them in its broker or folder). */
    private record Push(String match, Load load, int index) {
    }

    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "raw-baseline");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).executor(executor).build();
    private final String pushBase;
    private final String authorization;
    private final int maxInFlight;
    private final Runnable onDelivered;
    private final Map<String, ArrayDeque<Push>> waiting = new HashMap<>();
    private final Set<String> sending = new HashSet<>();
    private final Set<String> blocked = new HashSet<>();
    private final ArrayDeque<String> blockedOrder = new ArrayDeque<>();

    RawBaseline(BenchPartner.Identity partner, String baseUrl, String authUrl, int maxInFlight, Runnable onDelivered)
            throws IOException, InterruptedException {
        this.pushBase = baseUrl + "/v1/liveodds/" + partner.partnerId() + "/";
        this.maxInFlight = maxInFlight;
        this.onDelivered = onDelivered;
        String form = "grant_type=client_credentials&client_id=" + partner.clientId() + "&client_secret="
                + partner.clientSecret() + "&audience=" + URLEncoder.encode(baseUrl, StandardCharsets.UTF_8);
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(authUrl + "/oauth/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        Matcher token = ACCESS_TOKEN.matcher(answer.body());
        if (answer.statusCode() != 200 || !token.find()) {
            throw new IOException("token endpoint answered " + answer.statusCode());
        }
        this.authorization = "Bearer " + token.group(1);
    }

    /** Hands message i of the load to the client (the hand-over time is recorded for the latency). */
    void push(Load load, int i) {
        Push push = new Push(Load.matchId(load.matchOf(i)), load, i);
        load.handed(i);
        Push now = null;
        synchronized (this) {
            waiting.computeIfAbsent(push.match(), k -> new ArrayDeque<>()).add(push);
            if (!sending.contains(push.match()) && !blocked.contains(push.match())) {
                if (sending.size() < maxInFlight) {
                    sending.add(push.match());
                    now = waiting.get(push.match()).poll();
                } else {
                    blocked.add(push.match());
                    blockedOrder.add(push.match());
                }
            }
        }
        if (now != null) {
            attempt(now, 0);
        }
    }

    private void attempt(Push push, int failures) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(pushBase + push.match() + "/odds"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", authorization)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", push.load().id(push.index()))
                .POST(HttpRequest.BodyPublishers.ofString(push.load().body(push.index()))).build();
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((answer, error) -> {
            if (error == null && answer.statusCode() / 100 == 2) {
                onDelivered.run();
                next(push.match());
            } else {
                long backOff = Math.min(250L << Math.min(failures, 7), 30_000L);
                CompletableFuture.delayedExecutor(backOff, TimeUnit.MILLISECONDS, executor)
                        .execute(() -> attempt(push, failures + 1));
            }
        });
    }

    /** The match's push is done: its next one keeps the slot, or the slot goes to the longest-blocked match. */
    private void next(String match) {
        Push next;
        synchronized (this) {
            next = waiting.get(match).poll();
            if (next == null) {
                sending.remove(match);
                String other = blockedOrder.poll();
                if (other != null) {
                    blocked.remove(other);
                    sending.add(other);
                    next = waiting.get(other).poll();
                }
            }
        }
        if (next != null) {
            attempt(next, 0);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    /**
     * The baseline alone in a JVM of its own with JVM defaults, for its peak RSS: args base-urls auth-urls tag messages
     * matches, the URLs comma-separated: one partner ({@link BenchPartner.Identity#SINGLE}), or the fan-out's receivers
     * in order, each message pushed to every one of them. Prints {@code RAW-RESULT <pushes> <elapsed ms> <VmHWM KiB>}.
     */
    public static void main(String[] args) throws Exception {
        String[] baseUrls = args[0].split(",");
        String[] authUrls = args[1].split(",");
        Load load = new Load(args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
        CountDownLatch done = new CountDownLatch(load.size * baseUrls.length);
        List<RawBaseline> clients = new ArrayList<>();
        try {
            for (int r = 0; r < baseUrls.length; r++) {
                BenchPartner.Identity partner = baseUrls.length == 1 ? BenchPartner.Identity.SINGLE : BenchPartner.Identity.receiver(r);
                clients.add(new RawBaseline(partner, baseUrls[r], authUrls[r], 256, done::countDown));
            }
            long start = System.nanoTime();
            for (int i = 0; i < load.size; i++) {
                for (RawBaseline client : clients) {
                    client.push(load, i);
                }
            }
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException(done.getCount() + " pushes not delivered");
            }
            System.out.printf("RAW-RESULT %d %d %d%n", load.size * baseUrls.length,
                    (System.nanoTime() - start) / 1_000_000, ServiceUnderTest.peakRssKiB("self"));
        } finally {
            clients.forEach(RawBaseline::close);
        }
        System.exit(0);
    }
}
