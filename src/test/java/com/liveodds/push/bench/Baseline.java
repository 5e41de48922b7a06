package com.liveodds.push.bench;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * A baseline: what a plain client achieves against the same partner under the rule the service must keep, one push in
 * flight per match, with the same token, paths, headers and bodies. One thread per match: it takes its match's
 * messages in order and pushes each until it is answered 2xx, a refused or failed push retried after a doubling
 * back-off (250 ms to 30 s), so it holds back its own match only. No validation, no dead letters, no acknowledgement.
 * In the fan-out, one of these per partner (its own token and connections) gets every message.
 *
 * <p>Two clients put the pushes on the wire ({@link Client}): the raw one, plain HTTP/1.1 on blocking sockets
 * ({@link PlainHttpConnection}, a kept-alive connection per match thread), the physical limit; and the tuned camel-http
 * client of contract 23 ({@link CamelHttpClient}), the cost of a push under the design card.
 */
final class Baseline implements AutoCloseable {

    /** The clients a baseline sends with; {@link #main} takes the name. */
    enum Client {
        RAW, CAMEL_HTTP
    }

    /** How a baseline puts a push on the wire: a {@link Poster} per match thread. */
    interface Wire {
        Poster open();
    }

    /** Sends pushes for one match thread. */
    interface Poster extends AutoCloseable {
        /** POSTs the body to the target (the path) with these headers; the answer's status. Throws when the attempt failed. */
        int post(String target, Map<String, String> headers, byte[] body) throws Exception;

        @Override
        default void close() {
        }
    }

    private static final Pattern ACCESS_TOKEN = Pattern.compile("\"access_token\"\\s*:\\s*\"([^\"]+)\"");

    private final String pushBase;
    private final Wire wire;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Runnable onDelivered;
    private final Map<Integer, BlockingQueue<Push>> queues = new ConcurrentHashMap<>();
    private final List<Thread> senders = new ArrayList<>();
    private volatile boolean closed;

    /** The body is made when the push is sent, so a long backlog holds no bodies (as a source holds them in its broker or folder). */
    private record Push(Load load, int index) {
    }

    /**
     * The raw client: a kept-alive {@link PlainHttpConnection} per match thread, to the partner at this base URL.
     */
    static Wire plain(String baseUrl) {
        URI url = URI.create(baseUrl);
        return () -> {
            PlainHttpConnection connection = new PlainHttpConnection(url);
            return new Poster() {
                @Override
                public int post(String target, Map<String, String> headers, byte[] body) throws IOException {
                    return connection.post(target, headers, body).status();
                }

                @Override
                public void close() {
                    connection.close();
                }
            };
        };
    }

    /**
     * Fetches the partner's token (client credentials, as the service asks for it, over a plain connection: once, before
     * anything is measured); onDelivered runs on each 2xx.
     */
    Baseline(BenchPartner.Identity partner, String baseUrl, String authUrl, Wire wire, Runnable onDelivered) throws IOException {
        this.pushBase = "/v1/liveodds/" + partner.partnerId() + "/";
        this.wire = wire;
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
     * Hands message i of the load to its match's thread (started at the first message of that match slot); the
     * hand-over time is recorded for the latency. A thread serves match m of every load handed to it: a warm-up's
     * match m and the measured load's take turns on one thread and connection, so the measured part starts on warm ones.
     */
    void push(Load load, int i) {
        load.handed(i);
        queues.computeIfAbsent(load.matchOf(i), this::startSender).add(new Push(load, i));
    }

    private BlockingQueue<Push> startSender(int slot) {
        BlockingQueue<Push> queue = new LinkedBlockingQueue<>();
        Thread sender = new Thread(() -> send(queue), "baseline-match-" + slot);
        sender.setDaemon(true);
        synchronized (senders) {
            senders.add(sender);
        }
        sender.start();
        return queue;
    }

    /** The match's thread: its messages in order over its own poster. */
    private void send(BlockingQueue<Push> queue) {
        Map<String, String> pushHeaders = new LinkedHashMap<>(headers);
        try (Poster poster = wire.open()) {
            while (!closed) {
                Push push = queue.take();
                Load load = push.load();
                String target = pushBase + load.matchId(load.matchOf(push.index())) + "/odds";
                pushHeaders.put("Idempotency-Key", load.id(push.index()));
                byte[] body = load.body(push.index()).getBytes(StandardCharsets.UTF_8);
                for (int failures = 0; !delivered(poster, target, pushHeaders, body); failures++) {
                    Thread.sleep(Math.min(250L << Math.min(failures, 7), 30_000L));
                }
                onDelivered.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean delivered(Poster poster, String target, Map<String, String> headers, byte[] body) throws InterruptedException {
        try {
            return poster.post(target, headers, body) / 100 == 2;
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            // the attempt failed (the raw connection is closed, the next opens a new one): retried after the back-off
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
     * A baseline alone in a JVM of its own with JVM defaults (C2 included): args client (raw, camel_http) base-urls
     * auth-urls tag messages matches warm-up-messages, the URLs comma-separated: one partner
     * ({@link BenchPartner.Identity#SINGLE}), or the fan-out's receivers in order, each message pushed to every one of
     * them. The warm-up ({@link Load#warmUp}) is handed over at once and delivered before the load is, all at once.
     * Prints {@code BASELINE-RESULT <pushes> <elapsed ms> <VmHWM KiB>}.
     */
    public static void main(String[] args) throws Exception {
        // logback without a configuration logs at DEBUG: camel-http's client would write every request to the log
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
        Client client = Client.valueOf(args[0].toUpperCase(Locale.ROOT));
        String[] baseUrls = args[1].split(",");
        String[] authUrls = args[2].split(",");
        Load load = new Load(args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]));
        Load warmUp = load.warmUp(Integer.parseInt(args[6]));
        Semaphore delivered = new Semaphore(0);
        List<Baseline> clients = new ArrayList<>();
        // a connection per match thread, as the raw client has
        try (CamelHttpClient camel = client == Client.CAMEL_HTTP
                ? new CamelHttpClient(Math.max(load.matches, warmUp.matches)) : null) {
            for (int r = 0; r < baseUrls.length; r++) {
                BenchPartner.Identity partner = baseUrls.length == 1 ? BenchPartner.Identity.SINGLE : BenchPartner.Identity.receiver(r);
                Wire wire = camel == null ? plain(baseUrls[r]) : camel.to(baseUrls[r]);
                clients.add(new Baseline(partner, baseUrls[r], authUrls[r], wire, delivered::release));
            }
            handAll(warmUp, clients);
            delivered.acquire(warmUp.size * clients.size());
            long start = System.nanoTime();
            handAll(load, clients);
            if (!delivered.tryAcquire(load.size * clients.size(), 10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("pushes not delivered within 10 minutes");
            }
            System.out.printf("BASELINE-RESULT %d %d %d%n", load.size * baseUrls.length,
                    (System.nanoTime() - start) / 1_000_000, ServiceUnderTest.peakRssKiB("self"));
        } finally {
            clients.forEach(Baseline::close);
        }
        System.exit(0);
    }

    private static void handAll(Load load, List<Baseline> clients) {
        for (int i = 0; i < load.size; i++) {
            for (Baseline client : clients) {
                client.push(load, i);
            }
        }
    }
}
