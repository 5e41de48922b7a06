package com.liveodds.push.source.http;

import java.util.concurrent.atomic.AtomicLong;

import com.liveodds.push.auth.BearerAuthenticator;
import com.liveodds.push.httpapi.HttpAnswers;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.support.RoutePolicySupport;

/**
 * Route policy of the HTTP source: Vert.x handlers ahead of the route's own, so that nothing of a request's body is
 * read before the caller is known (contract section 11). In order:
 * <ol>
 * <li>the bearer check: a missing or refused token is answered 401 at once, without {@code 100 Continue} and with
 * the connection closed after the answer, its body never read (a JWT check that may fetch the JWKS runs off the event loop);</li>
 * <li>a {@code Content-Length} above {@code max-body} is answered 413 without reading;</li>
 * <li>the memory bound: the bytes of bodies being received or waiting for delivery are counted against
 * {@code max-receiving}; past it, 503 with {@code Retry-After}. A body of unknown size (chunked) counts as the
 * server's ceiling ({@code camel.server.maxBodySize}, all the server would read of it), so few of those are taken at
 * once. The count is given back when the answer is sent.</li>
 * </ol>
 * The body is then read as plain bytes whatever the {@code Content-Type} (Vert.x would decode a form-encoded or
 * multipart body as a form). The route checks the bearer again (cheap), the size of a body that did not declare it
 * (413), then the envelope (400) and the delivery slots (503).
 */
public class IngestGate extends RoutePolicySupport {

    private final BearerAuthenticator authenticator;
    private final HttpSource source;
    private String path = "/v1/ingest";
    private long maxReceiving = 32L * 1024 * 1024;
    private long serverMaxBody = 16L * 1024 * 1024;
    private final AtomicLong receiving = new AtomicLong();
    private io.vertx.ext.web.Route gate;

    public IngestGate(BearerAuthenticator authenticator, HttpSource source) {
        this.authenticator = authenticator;
        this.source = source;
    }

    public void setPath(String path) {
        this.path = path;
    }

    /** Body bytes held at once by requests being received or waiting for their delivery. */
    public void setMaxReceiving(long maxReceivingBytes) {
        this.maxReceiving = maxReceivingBytes;
    }

    /** {@code camel.server.maxBodySize} in bytes: what the server reads at most of a body of unknown size. */
    public void setServerMaxBody(long serverMaxBodyBytes) {
        this.serverMaxBody = serverMaxBodyBytes;
    }

    @Override
    public synchronized void onStart(Route route) {
        Router router = route.getCamelContext().getRegistry().findByType(VertxPlatformHttpRouter.class).stream()
                .filter(VertxPlatformHttpRouter::isMainServer).findFirst()
                .orElseThrow(() -> new IllegalStateException("no platform-http server for " + path));
        // right behind the door of the server (ServerDoor), which has refused a token in the query
        gate = router.route(path).order(Integer.MIN_VALUE + 1).handler(this::gate);
    }

    @Override
    public synchronized void onStop(Route route) {
        if (gate != null) {
            gate.remove();
            gate = null;
        }
    }

    private void gate(RoutingContext context) {
        HttpServerRequest request = context.request();
        request.headers().set(HttpHeaders.CONTENT_TYPE, "application/octet-stream");
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (!authenticator.mayBlock()) {
            admit(context, authenticator.isUnauthorized(authorization));
            return;
        }
        request.pause();
        context.vertx().executeBlocking(() -> authenticator.isUnauthorized(authorization), false)
                .onComplete(checked -> admit(context, checked.failed() || checked.result()));
    }

    private void admit(RoutingContext context, boolean unauthorized) {
        if (unauthorized) {
            context.response().putHeader("WWW-Authenticate", "Bearer");
            HttpAnswers.refuse(context, 401, "unauthorized", "a valid bearer token is required");
            return;
        }
        long length = HttpAnswers.declaredLength(context.request());
        if (length > source.maxBodyBytes()) {
            HttpAnswers.refuse(context, 413, "payload_too_large", "the message is larger than liveodds.source.http.max-body");
            return;
        }
        long reserved = length >= 0 ? length : serverMaxBody;
        if (!reserve(reserved)) {
            context.response().putHeader("Retry-After", Long.toString(source.retryAfterSeconds()));
            HttpAnswers.refuse(context, 503, "unavailable", "too many messages are being received; retry later");
            return;
        }
        context.addEndHandler(ended -> receiving.addAndGet(-reserved));
        context.next();
    }

    private boolean reserve(long bytes) {
        while (true) {
            long now = receiving.get();
            if (now + bytes > maxReceiving) {
                return false;
            }
            if (receiving.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }
}
