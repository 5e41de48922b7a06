package com.liveodds.push.bench;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The raw baseline: what plain HTTP/1.1 on blocking sockets ({@link PlainHttpConnection}) achieves against the same
 * partner under the rule the service must keep, one push in flight per match, with the same token, paths, headers and
 * bodies. One thread and one keep-alive connection per match: the thread takes its match's messages in order and
 * pushes each until it is answered 2xx, a refused or failed push retried after a doubling back-off (250 ms to 30 s),
 * so it holds back its own match only. No validation, no dead letters, no acknowledgement: an upper bound. In the
 * fan-out, one of these per partner (its own token and connections) gets every message.
 */
final class RawBaseline implements AutoCloseable {

    private static final Pattern ACCESS_TOKEN = Pattern.compile("\"access_token\"\\s*:\\s*\"([^\"]+)\"");

    private final URI partnerUrl;
    private final String pushBase;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Runnable onDelivered;
    private final Map<String, BlockingQueue<Push>> queues = new ConcurrentHashMap<>();
    private final List<Thread> senders = new ArrayList<>();
    private volatile boolean closed;

    /** The body is made when the push is sent, so a long backlog holds no bodies (as a source holds them in its broker or folder). */
    private record Push(Load load, int index) {
    }

    /** Fetches the partner's token (client credentials, as the service asks for it); onDelivered runs on each 2xx. */
    RawBaseline(BenchPartner.Identity partner, String baseUrl, String authUrl, Runnable onDelivered) throws IOException {
        this.partnerUrl = URI.create(baseUrl);
        this.pushBase = "/v1/liveodds/" + partner.partnerId() + "/";
        this.onDelivered = onDelivered;
        URI tokenUrl = URI.create(authUrl + "/oauth/token");
        String form = "grant_type=client_credentials&client_id=" + partner.clientId() + "&client_secret="
                + partner.clientSecret() + "&audience=" + URLEncoder.encode(baseUrl, StandardCharsets.UTF_8);
        PlainHttpConnection.Answer answer;
        try (PlainHttpConnection auth = new PlainHttpConnection(tokenUrl)) {
            answer = auth.post(tokenUrl.getRawPath(), Map.of("Content-Type", "application/x-www-form-urlencoded"),
                    form.getBytes(StandardCharsets.UTF_8));
        }
        Matcher token = ACCESS_TOKEN.matcher(answer.text());
        if (answer.status() != 200 || !token.find()) {
            throw new IOException("token endpoint answered " + answer.status());
        }
        headers.put("Authorization", "Bearer " + token.group(1));
        headers.put("Content-Type", "application/json");
    }

    /**
     * Hands message i of the load to its match's thread (started at the match's first message); the hand-over time
     * is recorded for the latency.
     */
    void push(Load load, int i) {
        load.handed(i);
        queues.computeIfAbsent(Load.matchId(load.matchOf(i)), this::startSender).add(new Push(load, i));
    }

    private BlockingQueue<Push> startSender(String match) {
        BlockingQueue<Push> queue = new LinkedBlockingQueue<>();
        Thread sender = new Thread(() -> send(match, queue), "raw-" + match);
        sender.setDaemon(true);
        synchronized (senders) {
            senders.add(sender);
        }
        sender.start();
        return queue;
    }

    /** The match's thread: its messages in order over its own connection. */
    private void send(String match, BlockingQueue<Push> queue) {
        String target = pushBase + match + "/odds";
        Map<String, String> pushHeaders = new LinkedHashMap<>(headers);
        try (PlainHttpConnection connection = new PlainHttpConnection(partnerUrl)) {
            while (!closed) {
                Push push = queue.take();
                pushHeaders.put("Idempotency-Key", push.load().id(push.index()));
                byte[] body = push.load().body(push.index()).getBytes(StandardCharsets.UTF_8);
                for (int failures = 0; !delivered(connection, target, pushHeaders, body); failures++) {
                    Thread.sleep(Math.min(250L << Math.min(failures, 7), 30_000L));
                }
                onDelivered.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean delivered(PlainHttpConnection connection, String target, Map<String, String> headers, byte[] body) {
        try {
            return connection.post(target, headers, body).status() / 100 == 2;
        } catch (IOException e) {
            // the connection is closed: the retry opens a new one
            return false;
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (senders) {
            senders.forEach(Thread::interrupt);
        }
    }

    /**
     * The baseline alone in a JVM of its own with JVM defaults: args base-urls auth-urls tag messages matches, the
     * URLs comma-separated: one partner ({@link BenchPartner.Identity#SINGLE}), or the fan-out's receivers in order,
     * each message pushed to every one of them, all handed over at once. Prints
     * {@code RAW-RESULT <pushes> <elapsed ms> <VmHWM KiB>}.
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
                clients.add(new RawBaseline(partner, baseUrls[r], authUrls[r], done::countDown));
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
