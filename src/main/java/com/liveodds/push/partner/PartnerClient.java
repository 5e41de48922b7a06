package com.liveodds.push.partner;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLException;

import com.liveodds.push.ops.Meters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one HTTP client for everything sent to the partner (contract section 10), on {@link HttpClient} (HTTP/1.1,
 * asynchronous):
 * <ul>
 * <li>one attempt is one request: redirects are not followed (a 3xx comes back with its {@code Location}) and the
 * JDK client never resends a POST by itself (it retries a refused connect, which sends nothing, and resends on a
 * dead pooled connection only idempotent methods unless {@code jdk.httpclient.enableAllMethodRetry} is set, which
 * start-up warns about);</li>
 * <li>{@code liveodds.delivery.timeout} bounds the whole attempt, connect, TLS, send, headers and body: at the
 * deadline the exchange is cancelled and its connection dropped, however slowly the partner is still sending;</li>
 * <li>at most 64 KiB of an answer body are read, the rest is left unread on a dropped connection;</li>
 * <li>at most {@code liveodds.delivery.max-in-flight} pushes are on the wire at once; the others wait in a FIFO queue
 * that holds no thread.</li>
 * </ul>
 * It never throws: every failure is an answer with status 0. Each push is timed ({@code liveodds_push_attempt_seconds})
 * and reported to {@link PartnerHealth}.
 */
public class PartnerClient implements CamelContextAware {

    /** Most of an answer body ever read: small answers are drained so their connection can be reused. */
    public static final int READ_LIMIT = 64 * 1024;
    /** Most of a push answer body kept (dead letters, logs). */
    public static final int KEPT = 4 * 1024;
    /** The JVM setting that keeps the common pool a pool (see {@link #start()}). */
    public static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";
    private static final Logger LOG = LoggerFactory.getLogger(PartnerClient.class);
    private static final String[] OUTCOMES = {"2xx", "401", "4xx", "5xx", "429", "timeout", "error"};
    private static final int MAX_ERROR_LENGTH = 200;
    private static final AtomicBoolean WARNED_COMMON_POOL = new AtomicBoolean();
    private static final PartnerAnswer STOPPED = new PartnerAnswer(0, null, null, null, "partner client stopped", false);

    private String baseUrl;
    private Duration timeout = Duration.ofSeconds(10);
    private int maxInFlight = 256;
    private PartnerTls tls = new PartnerTls();
    private PartnerHealth health = new PartnerHealth();
    private CamelContext camelContext;
    private MeterRegistry meterRegistry;

    private String base;
    private long timeoutNanos;
    private PartnerAnswer timedOut;
    private HttpClient http;
    private ExecutorService executor;
    private ScheduledThreadPoolExecutor deadlines;
    private InFlightPermits permits;
    private volatile Timer[] timers;
    private volatile boolean stopped;

    public PartnerClient() {
    }

    /** A started client; {@code baseUrl} may be null for a client that only sends {@link #send token requests}. */
    public PartnerClient(String baseUrl, Duration timeout, int maxInFlight, PartnerTls tls, PartnerHealth health) {
        this.baseUrl = baseUrl;
        this.timeout = timeout;
        this.maxInFlight = maxInFlight;
        this.tls = tls;
        this.health = health;
        start();
    }

    /** {@code liveodds.partner.base-url}: push paths are appended to it. */
    public void setBaseUrl(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** {@code liveodds.delivery.timeout}: the whole attempt. */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    /** {@code liveodds.delivery.max-in-flight}. */
    public void setMaxInFlight(int maxInFlight) {
        this.maxInFlight = maxInFlight;
    }

    public void setTls(PartnerTls tls) {
        this.tls = tls;
    }

    public void setHealth(PartnerHealth health) {
        this.health = health;
    }

    /** Where the attempt timers go when not the CamelContext's meter registry (plain Java use, tests). */
    public void setMeterRegistry(MeterRegistry meterRegistry) {
        this.meterRegistry = meterRegistry;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    public PartnerHealth health() {
        return health;
    }

    public void start() {
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("liveodds.delivery.timeout must be positive, not " + timeout);
        }
        base = baseUrl == null ? "" : (baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
        timeoutNanos = timeout.toNanos();
        timedOut = new PartnerAnswer(0, null, null, null, "no complete answer within " + timeout.toMillis()
                + " ms (liveodds.delivery.timeout)", true);
        executor = Executors.newCachedThreadPool(daemon("liveodds-partner-http"));
        deadlines = new ScheduledThreadPoolExecutor(1, daemon("liveodds-partner-deadline"));
        // thousands of cancelled 10 s deadlines must not pile up in the queue
        deadlines.setRemoveOnCancelPolicy(true);
        permits = new InFlightPermits(maxInFlight, executor);
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .sslContext(tls.sslContext())
                .executor(executor)
                .build();
        if (ForkJoinPool.getCommonPoolParallelism() < 2 && !WARNED_COMMON_POOL.getAndSet(true)) {
            // HttpClient.sendAsync completes every answer through CompletableFuture's default executor, which is a new
            // thread per task when the common pool has fewer than 2 threads: half the throughput on 2 cores
            LOG.warn("The JVM's common pool has parallelism {}: the partner client pays a new thread per answer; start the JVM with -D{}=2",
                    ForkJoinPool.getCommonPoolParallelism(), COMMON_POOL_PARALLELISM);
        }
        if (Boolean.getBoolean("jdk.httpclient.enableAllMethodRetry")) {
            LOG.warn("jdk.httpclient.enableAllMethodRetry is set: the JDK HTTP client may send a push twice in one attempt");
        }
    }

    /**
     * Takes no new request: waiting ones answer "stopped" at once, those on the wire still end by their deadline. The
     * executor is left running for them; its idle threads end by themselves.
     */
    public void stop() {
        stopped = true;
        if (deadlines != null) {
            deadlines.shutdown();
        }
    }

    /**
     * One push attempt: POST {@code base-url/path} with exactly the contract's headers. Waits for a free in-flight
     * permit without holding a thread (the time-out starts once it is on the wire); the answer comes on one of the
     * client's threads.
     *
     * @param path e.g. {@code v1/liveodds/42/match:1/odds}, joined to the base URL with one {@code /}
     */
    public CompletableFuture<PartnerAnswer> post(String path, String authorization, String idempotencyKey, byte[] body) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(base + (path.startsWith("/") ? path.substring(1) : path)))
                    .header("Authorization", authorization)
                    .header("Content-Type", "application/json")
                    .header("Idempotency-Key", idempotencyKey)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build();
        } catch (RuntimeException e) {
            // the message could quote a header value (the token): the type of the problem is enough
            PartnerAnswer unsendable = new PartnerAnswer(0, null, null, null,
                    "push not sendable (" + e.getClass().getSimpleName() + ")", false);
            reported(unsendable, 0);
            return CompletableFuture.completedFuture(unsendable);
        }
        CompletableFuture<PartnerAnswer> result = new CompletableFuture<>();
        permits.run(() -> {
            long started = System.nanoTime();
            exchange(request, KEPT).whenComplete((answer, impossible) -> {
                permits.release();
                reported(answer, System.nanoTime() - started);
                result.complete(answer);
            });
        });
        return result;
    }

    /**
     * One request outside the push queue (the token request), with the same TLS and whole-attempt time-out; neither
     * timed nor reported to the health check (its caller judges the answer).
     *
     * @param keepBytes how much of the body (at most {@link #READ_LIMIT}) the answer keeps as text
     */
    public CompletableFuture<PartnerAnswer> send(URI uri, String contentType, byte[] body, int keepBytes) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(uri).header("Content-Type", contentType)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(new PartnerAnswer(0, null, null, null,
                    "request not sendable (" + e.getClass().getSimpleName() + ")", false));
        }
        return exchange(request, keepBytes);
    }

    private CompletableFuture<PartnerAnswer> exchange(HttpRequest request, int keepBytes) {
        CompletableFuture<PartnerAnswer> answer = new CompletableFuture<>();
        if (stopped) {
            answer.complete(STOPPED);
            return answer;
        }
        AtomicBoolean settled = new AtomicBoolean();
        BoundedBody body = new BoundedBody(READ_LIMIT);
        CompletableFuture<HttpResponse<byte[]>> sent;
        try {
            sent = http.sendAsync(request, body::receiving);
        } catch (RuntimeException e) {
            answer.complete(failure(e));
            return answer;
        }
        ScheduledFuture<?> deadline;
        try {
            deadline = deadlines.schedule(() -> {
                if (settled.compareAndSet(false, true)) {
                    body.abort();
                    sent.cancel(true);
                    // the caller's continuation must not run on the one deadline thread
                    executor.execute(() -> answer.complete(timedOut));
                }
            }, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            // stopped between the check above and here: no attempt without a deadline
            sent.cancel(true);
            answer.complete(STOPPED);
            return answer;
        }
        // an answer completes from the body, on the client's executor
        body.body().whenComplete((bytes, error) -> {
            if (error == null && settled.compareAndSet(false, true)) {
                deadline.cancel(false);
                answer.complete(answer(body.info(), bytes, keepBytes));
            }
        });
        // no answer (connect, TLS, reset, cut body): only the JDK's future says why
        sent.whenComplete((response, error) -> {
            if (error != null && settled.compareAndSet(false, true)) {
                deadline.cancel(false);
                answer.complete(failure(error));
            }
        });
        return answer;
    }

    private static PartnerAnswer answer(HttpResponse.ResponseInfo response, byte[] bytes, int keepBytes) {
        int status = response.statusCode();
        String retryAfter = response.headers().firstValue("Retry-After").orElse(null);
        String location = status >= 300 && status < 400 ? response.headers().firstValue("Location").orElse(null) : null;
        String text = bytes.length == 0 ? null : new String(bytes, 0, Math.min(keepBytes, bytes.length), StandardCharsets.UTF_8);
        return new PartnerAnswer(status, retryAfter, location, text, null, false);
    }

    private static PartnerAnswer failure(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof HttpTimeoutException) {
            return new PartnerAnswer(0, null, null, null, "time-out: " + describe(e), true);
        }
        String why;
        if (causedBy(e, SSLException.class)) {
            why = "TLS handshake with the partner failed: " + describe(rootOf(e, SSLException.class));
        } else if (e instanceof ConnectException) {
            why = "cannot connect: " + describe(e);
        } else if (e instanceof IOException) {
            why = "connection failed: " + describe(e);
        } else {
            why = "request failed: " + describe(e);
        }
        return new PartnerAnswer(0, null, null, null, why, false);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        return rootOf(e, type) != null;
    }

    private static Throwable rootOf(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        return null;
    }

    /** The exception's type and message, one printable line of bounded length (it may reach a log). */
    private static String describe(Throwable e) {
        String message = e.getMessage();
        String text = message == null || message.isBlank() ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + " " + message;
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_ERROR_LENGTH));
        for (int i = 0; i < text.length() && out.length() < MAX_ERROR_LENGTH; i++) {
            char c = text.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return out.toString();
    }

    private void reported(PartnerAnswer answer, long nanos) {
        health.answered(answer);
        Timer[] byOutcome = timers();
        if (byOutcome != null) {
            byOutcome[outcomeIndex(answer.outcome())].record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    private static int outcomeIndex(String outcome) {
        return switch (outcome) {
            case "2xx" -> 0;
            case "401" -> 1;
            case "4xx" -> 2;
            case "5xx" -> 3;
            case "429" -> 4;
            case "timeout" -> 5;
            default -> 6;
        };
    }

    /** The seven timers, made on first use (the meter registry exists once the CamelContext runs). */
    private Timer[] timers() {
        Timer[] cached = timers;
        if (cached == null) {
            MeterRegistry registry = meterRegistry != null ? meterRegistry
                    : camelContext != null ? Meters.registry(camelContext) : null;
            if (registry == null) {
                return null;
            }
            cached = new Timer[OUTCOMES.length];
            for (int i = 0; i < OUTCOMES.length; i++) {
                cached[i] = Timer.builder("liveodds.push.attempt")
                        .description("One HTTP attempt to the partner (push or heartbeat), by outcome")
                        .tag("outcome", OUTCOMES[i])
                        .publishPercentileHistogram()
                        .register(registry);
            }
            timers = cached;
        }
        return cached;
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
