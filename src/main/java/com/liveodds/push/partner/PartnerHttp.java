package com.liveodds.push.partner;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.http.HttpClientConfigurer;
import org.apache.camel.component.http.HttpComponent;
import org.apache.camel.http.common.HttpHeaderFilterStrategy;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.io.HttpClientConnectionManager;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;
import org.apache.hc.core5.util.Timeout;

/**
 * What the bundle's camel-http component {@code liveoddsHttp} needs beyond its options (contract sections 10 and 14),
 * for the token request, every push and every heartbeat:
 * <ul>
 * <li>{@link #connectionManager()}: a pool sized for {@code liveodds.delivery.max-in-flight} requests to the partner
 * (plus the token request), TLS from {@link PartnerTls} (trust store, client certificate; the JVM's
 * {@code javax.net.ssl.*} when empty) for {@code https://} only, so an {@code http://} partner stays plain;</li>
 * <li>{@link #configureHttpClient}: a deadline of {@code liveodds.delivery.timeout} over the whole attempt, connect,
 * TLS handshake, send, headers and the complete body however slowly it comes: at the deadline the attempt's
 * connection is dropped and the attempt fails with {@link AttemptTimedOut};</li>
 * <li>an answer body is read to at most {@value #READ_LIMIT} bytes; beyond that the connection is dropped, the rest
 * is never read (not drained).</li>
 * </ul>
 * The client's own retries and redirects are off on the component ({@code automaticRetriesDisabled},
 * {@code redirectHandlingDisabled}), so are its cookie store and content compression; they are switched off here
 * again, as this configurer is applied last.
 */
public class PartnerHttp implements HttpClientConfigurer {

    /** Most of an answer body ever read. */
    public static final int READ_LIMIT = 64 * 1024;
    /** Connections beyond max-in-flight: the token request never waits for a push's connection. */
    private static final int TOKEN_CONNECTIONS = 2;

    private PartnerTls tls = new PartnerTls();
    private Duration timeout = Duration.ofSeconds(10);
    private int maxInFlight = 256;
    /** The component this configures ({@link #component}): its CamelContext makes the deadlines' thread. */
    private volatile HttpComponent owner;
    private volatile ScheduledExecutorService deadlines;

    public PartnerHttp() {
    }

    public PartnerHttp(PartnerTls tls, Duration timeout, int maxInFlight) {
        setTls(tls);
        setTimeout(timeout);
        setMaxInFlight(maxInFlight);
    }

    public void setTls(PartnerTls tls) {
        this.tls = tls;
    }

    /** {@code liveodds.delivery.timeout}: the whole attempt. */
    public void setTimeout(Duration timeout) {
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("liveodds.delivery.timeout must be positive, not " + timeout);
        }
        this.timeout = timeout;
    }

    /** {@code liveodds.delivery.max-in-flight}: the pool's connections to the partner. */
    public void setMaxInFlight(int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("liveodds.delivery.max-in-flight must be at least 1, not " + maxInFlight);
        }
        this.maxInFlight = maxInFlight;
    }

    public Duration getTimeout() {
        return timeout;
    }

    /**
     * The connection pool of {@code liveoddsHttp}: TLS from {@link PartnerTls}. Its own time-outs are a backstop a
     * second behind the attempt's deadline, which is what ends a slow attempt.
     */
    public PoolingHttpClientConnectionManager connectionManager() {
        Timeout bound = Timeout.of(timeout.plusSeconds(1));
        return PoolingHttpClientConnectionManagerBuilder.create()
                .setTlsSocketStrategy(new DefaultClientTlsStrategy(tls.sslContext()))
                .setMaxConnTotal(maxInFlight + TOKEN_CONNECTIONS)
                .setMaxConnPerRoute(maxInFlight + TOKEN_CONNECTIONS)
                .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(bound).setSocketTimeout(bound).build())
                .setDefaultTlsConfig(TlsConfig.custom().setHandshakeTimeout(bound).build())
                .build();
    }

    /** {@link #connectionManager()} of this configuration, as a static factory for routes/beans.yaml. */
    public static PoolingHttpClientConnectionManager connectionsOf(PartnerHttp http) {
        return http.connectionManager();
    }

    /** A {@code liveoddsHttp} component outside a route file (plain Java, tests), configured as routes/beans.yaml does. */
    public HttpComponent component() {
        return component(connectionManager());
    }

    /** A component on these connections (one partner of a list: its own pool and TLS). */
    public HttpComponent component(HttpClientConnectionManager connections) {
        HttpComponent component = new HttpComponent();
        component.setAutomaticRetriesDisabled(true);
        component.setRedirectHandlingDisabled(true);
        component.setCookieManagementDisabled(true);
        component.setContentCompressionDisabled(true);
        // what each request would pay for and nothing reads (contract 23): the request's headers are not copied onto
        // the answer, of the answer's headers only those the verdict reads become headers, and the client keeps no
        // auth cache or connection state (no Basic auth, no NTLM)
        component.setCopyHeaders(false);
        component.setHeaderFilterStrategy(new AnswerHeaders());
        component.setAuthCachingDisabled(true);
        component.setConnectionStateDisabled(true);
        component.setClientConnectionManager(connections);
        component.setHttpClientConfigurer(this);
        owner = component;
        return component;
    }

    @Override
    public void configureHttpClient(HttpClientBuilder builder) {
        builder.disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableContentCompression()
                .addExecInterceptorFirst("liveodds-attempt-deadline", this::withinDeadline);
    }

    public void stop() {
        ScheduledExecutorService made = deadlines;
        if (made != null) {
            owner.getCamelContext().getExecutorServiceManager().shutdownNow(made);
        }
    }

    /** One thread of the component's CamelContext for every attempt's deadline, made at the first attempt. */
    private ScheduledExecutorService deadlines() {
        ScheduledExecutorService made = deadlines;
        if (made == null) {
            synchronized (this) {
                made = deadlines;
                if (made == null) {
                    CamelContext context = owner == null ? null : owner.getCamelContext();
                    if (context == null) {
                        throw new IllegalStateException("PartnerHttp configures a component that is not in a CamelContext");
                    }
                    made = context.getExecutorServiceManager().newScheduledThreadPool(this, "liveodds-partner-deadline", 1);
                    if (made instanceof ScheduledThreadPoolExecutor pool) {
                        // thousands of cancelled 10 s deadlines must not pile up in the queue
                        pool.setRemoveOnCancelPolicy(true);
                    }
                    deadlines = made;
                }
            }
        }
        return made;
    }

    /** Runs one request under the attempt's deadline; the answer's body stays under it until read or closed. */
    private ClassicHttpResponse withinDeadline(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        Attempt attempt = new Attempt(scope.execRuntime instanceof Cancellable c ? c : null);
        attempt.deadline = deadlines().schedule(attempt::expire, timeout.toNanos(), TimeUnit.NANOSECONDS);
        ClassicHttpResponse response;
        try {
            response = chain.proceed(request, scope);
        } catch (IOException | HttpException | RuntimeException e) {
            attempt.finish();
            if (attempt.expired.get()) {
                throw new AttemptTimedOut(timeout);
            }
            throw e;
        }
        HttpEntity entity = response.getEntity();
        if (entity != null && entity.getContentLength() == 0) {
            // the partner's empty 202: no body for camel-http to put through its stream cache
            EntityUtils.consume(entity);
            response.setEntity(null);
            entity = null;
        }
        if (entity == null) {
            attempt.finish();
        } else {
            response.setEntity(new BoundedEntity(entity, attempt, timeout));
        }
        return response;
    }

    /**
     * The HTTP filter for what goes out; of what comes back, only {@code Retry-After} and {@code Location} (what
     * {@link PartnerAnswer} reads besides the status and the body).
     */
    static final class AnswerHeaders extends HttpHeaderFilterStrategy {
        @Override
        public boolean applyFilterToExternalHeaders(String headerName, Object headerValue, Exchange exchange) {
            return !"Retry-After".equalsIgnoreCase(headerName) && !"Location".equalsIgnoreCase(headerName);
        }
    }

    /** The attempt ran into {@code liveodds.delivery.timeout}: its connection was dropped. */
    public static final class AttemptTimedOut extends InterruptedIOException {
        AttemptTimedOut(Duration timeout) {
            super("no complete answer within " + timeout.toMillis() + " ms (liveodds.delivery.timeout)");
        }
    }

    /** One request on the wire and its deadline. */
    private static final class Attempt {
        private final Cancellable connection;
        private final AtomicBoolean expired = new AtomicBoolean();
        private final AtomicBoolean finished = new AtomicBoolean();
        private volatile ScheduledFuture<?> deadline;

        Attempt(Cancellable connection) {
            this.connection = connection;
        }

        void expire() {
            if (!finished.get() && expired.compareAndSet(false, true)) {
                drop();
            }
        }

        /** Drops the connection at once: whatever the partner is still sending is never read. */
        void drop() {
            if (connection != null) {
                connection.cancel();
            }
        }

        void finish() {
            if (finished.compareAndSet(false, true)) {
                ScheduledFuture<?> d = deadline;
                if (d != null) {
                    d.cancel(false);
                }
            }
        }
    }

    /** The answer's body, read under the deadline and to at most {@link #READ_LIMIT} bytes. */
    private static final class BoundedEntity extends HttpEntityWrapper {
        private final Attempt attempt;
        private final Duration timeout;
        private InputStream content;

        BoundedEntity(HttpEntity wrapped, Attempt attempt, Duration timeout) {
            super(wrapped);
            this.attempt = attempt;
            this.timeout = timeout;
        }

        @Override
        public synchronized InputStream getContent() throws IOException {
            if (content == null) {
                content = new BoundedStream(super.getContent(), super.getContentLength(), attempt, timeout);
            }
            return content;
        }

        @Override
        public long getContentLength() {
            long length = super.getContentLength();
            return length <= READ_LIMIT ? length : -1;
        }

        @Override
        public boolean isStreaming() {
            return true;
        }

        @Override
        public boolean isRepeatable() {
            return false;
        }

        @Override
        public void close() throws IOException {
            getContent().close();
        }
    }

    private static final class BoundedStream extends InputStream {
        private final InputStream in;
        /** The partner's Content-Length, or -1. */
        private final long length;
        private final Attempt attempt;
        private final Duration timeout;
        private int read;
        /** The partner's body ended (the connection may be reused) rather than being cut. */
        private boolean complete;
        private boolean closed;

        BoundedStream(InputStream in, long length, Attempt attempt, Duration timeout) {
            this.in = in;
            this.length = length;
            this.attempt = attempt;
            this.timeout = timeout;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (closed || complete || read >= READ_LIMIT) {
                return -1;
            }
            int n;
            try {
                n = in.read(b, off, Math.min(len, READ_LIMIT - read));
            } catch (IOException e) {
                attempt.finish();
                throw attempt.expired.get() ? new AttemptTimedOut(timeout) : e;
            }
            if (n < 0) {
                complete = true;
                attempt.finish();
                return -1;
            }
            read += n;
            if (read == length) {
                // all of it: the connection goes back to the pool
                complete = true;
                attempt.finish();
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            attempt.finish();
            if (complete) {
                in.close();
            } else {
                // cut at the limit or never read to the end: drop the connection instead of draining it
                attempt.drop();
            }
        }
    }
}
