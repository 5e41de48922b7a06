package com.liveodds.push.auth;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import com.liveodds.push.httpapi.HttpAnswers;
import com.liveodds.push.httpapi.JsonErrors;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpServer;
import org.apache.camel.support.RoutePolicySupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The door of the bundle's paths on {@code camel.server.port} (contract section 22): a Vert.x handler ahead of every
 * route, so that nothing of a request's body is read before it is allowed. For a path of ours, in order:
 * <ol>
 * <li>a token in the query string ({@code authorization}, {@code access_token}) is refused, 401, and a form body is
 * taken as plain bytes, never decoded into headers: the token comes from the {@code Authorization} header alone;</li>
 * <li>a method the bundle's routes do not serve there, 405 (a path they do not serve: 404, or on to the host's
 * routes), its body unread;</li>
 * <li>the bearer token of the path's {@link Entrance} (401; a valid token of another partner 404, as an unknown id),
 * checked off the event loop when it may fetch a JWKS;</li>
 * <li>a declared size above the path's limit, 413;</li>
 * <li>a partner's share ({@link PartnerAllowance}), 429 with {@code Retry-After};</li>
 * <li>the body, read up to the path's limit (413 beyond it) and cut with 408 when it has not ended in time.</li>
 * </ol>
 * An answer before the body is read closes the connection, so the unread body is never taken. Every answer, and every
 * failure of the bundle's routes (a body over a limit, a bad query), is JSON without a stack trace. Paths that are not
 * the bundle's routes' (a host's) pass untouched. Over HTTP/2 the body is read by platform-http's own handler, its
 * declared size judged here first. Installed as a route policy of a route that always runs on that port.
 */
public class ServerDoor extends RoutePolicySupport {

    private static final Logger LOG = LoggerFactory.getLogger(ServerDoor.class);
    /** Query parameters that carry a bearer token (RFC 6750 2.3), refused wherever they come. */
    private static final List<String> QUERY_TOKENS = List.of("authorization", "access_token");

    /**
     * What the paths under one prefix ask before their body is read.
     *
     * @param prefix        the paths it governs: ending in {@code /}, every path below it ({@code /v1/liveodds/});
     *                      else that path and the paths below it ({@code /admin/dead-letters})
     * @param authenticator whose token it takes; null: no token (the status page), or checked by a gate of the path's
     *                      own ({@code /v1/ingest}, when {@code maxBody} is negative)
     * @param partnerBound  the token must be one of the partner whose id follows the prefix; that partner's share counts
     * @param maxBody       bytes of body read at most; negative: the path's own gate judges and reads the body
     */
    public record Entrance(String prefix, BearerAuthenticator authenticator, boolean partnerBound, long maxBody) {

        boolean governs(String path) {
            return path.startsWith(prefix) && (prefix.endsWith("/") || path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
        }

        boolean ownGate() {
            return maxBody < 0;
        }
    }

    private final List<Entrance> entrances;
    private final PartnerAllowance allowance;
    private final Duration bodyTimeout;
    private io.vertx.ext.web.Route door;

    public ServerDoor(List<Entrance> entrances, PartnerAllowance allowance, Duration bodyTimeout) {
        this.entrances = List.copyOf(entrances);
        this.allowance = allowance;
        this.bodyTimeout = bodyTimeout;
    }

    @Override
    public synchronized void onStart(Route route) {
        if (door != null) {
            return;
        }
        CamelContext camel = route.getCamelContext();
        camel.getRegistry().findByType(VertxPlatformHttpRouter.class).stream()
                .filter(VertxPlatformHttpRouter::isMainServer).findFirst()
                .ifPresent(router -> door = install(router, camel));
    }

    @Override
    public synchronized void onStop(Route route) {
        if (door != null) {
            door.remove();
            door = null;
        }
    }

    /** Ahead of every route of the router (a path's own gate comes right after it), its failures answered in JSON. */
    private io.vertx.ext.web.Route install(VertxPlatformHttpRouter router, CamelContext camel) {
        answerUnreadablePathsInJson(router);
        return router.route().order(Integer.MIN_VALUE)
                .handler(context -> enter(context, camel))
                .failureHandler(this::failed);
    }

    private void enter(RoutingContext context, CamelContext camel) {
        HttpServerRequest request = context.request();
        // Vert.x routes /x/ (and /x/.) to the route of /x: judged as that path
        String path = withoutTrailingSlash(context.normalizedPath());
        Entrance entrance = entrances.stream().filter(e -> e.governs(path)).findFirst().orElse(null);
        String served = entrance == null ? "" : JsonErrors.served(camel).methods(path, ServerDoor::isTheBundles);
        if (entrance == null || served.isEmpty() && !entrance.partnerBound() && !entrance.ownGate()) {
            // not a path of the bundle's routes: a host's, or nothing (JsonErrors' 404)
            context.next();
            return;
        }
        if (hasQueryToken(context)) {
            context.response().putHeader("WWW-Authenticate", "Bearer error=\"invalid_request\"");
            HttpAnswers.refuse(context, 401, "unauthorized", "a bearer token is taken from the Authorization header only");
            return;
        }
        // a form body stays bytes: platform-http would turn its fields into headers, an Authorization among them
        request.headers().set(HttpHeaders.CONTENT_TYPE, "application/octet-stream");
        cutWhenSlow(context);
        if (entrance.ownGate()) {
            context.next();
            return;
        }
        if (served.isEmpty()) {
            HttpAnswers.refuse(context, 404, "not_found", "nothing is served here for this path");
            return;
        }
        if (!Arrays.asList(served.split(", ")).contains(request.method().name())) {
            context.response().putHeader(HttpHeaders.ALLOW, served);
            HttpAnswers.refuse(context, 405, "method_not_allowed", "use " + served);
            return;
        }
        String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
        String partner = entrance.partnerBound() ? partnerOf(path, entrance.prefix()) : null;
        BearerAuthenticator authenticator = entrance.authenticator();
        if (authenticator == null) {
            admit(context, entrance, null, Verdict.ALLOWED);
        } else if (!authenticator.mayBlock()) {
            admit(context, entrance, partner, verdict(authenticator, authorization, entrance, partner));
        } else {
            request.pause();
            context.vertx().executeBlocking(() -> verdict(authenticator, authorization, entrance, partner), false)
                    .onComplete(checked -> admit(context, entrance, partner, checked.failed() ? Verdict.UNAUTHORIZED : checked.result()));
        }
    }

    /** A route of the bundle: its ids are namespaced. */
    private static boolean isTheBundles(String routeId) {
        return routeId.startsWith("liveodds-");
    }

    private static String withoutTrailingSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private enum Verdict { ALLOWED, UNAUTHORIZED, OTHER_PARTNER }

    private static Verdict verdict(BearerAuthenticator authenticator, String authorization, Entrance entrance, String partner) {
        if (!authenticator.isAuthorized(authorization)) {
            return Verdict.UNAUTHORIZED;
        }
        return entrance.partnerBound() && authenticator.isNotForPartner(authorization, partner) ? Verdict.OTHER_PARTNER : Verdict.ALLOWED;
    }

    private void admit(RoutingContext context, Entrance entrance, String partner, Verdict verdict) {
        if (context.response().ended() || context.response().closed()) {
            // cut (time-out, the caller gone) while its token was checked: nothing to admit, nothing to give back later
            return;
        }
        if (verdict == Verdict.UNAUTHORIZED) {
            context.response().putHeader("WWW-Authenticate", "Bearer");
            HttpAnswers.refuse(context, 401, "unauthorized", "a valid bearer token is required");
            return;
        }
        if (verdict == Verdict.OTHER_PARTNER) {
            HttpAnswers.refuse(context, 404, "not_found", "unknown partner id");
            return;
        }
        long length = HttpAnswers.declaredLength(context.request());
        if (length > entrance.maxBody()) {
            HttpAnswers.refuse(context, 413, "payload_too_large", "the request body is larger than " + entrance.maxBody() + " bytes");
            return;
        }
        if (partner != null) {
            long retryAfter = allowance.admit(partner);
            if (retryAfter > 0) {
                context.response().putHeader("Retry-After", Long.toString(retryAfter));
                HttpAnswers.refuse(context, 429, "too_many_requests", "this partner has too many requests at once or this minute; retry later");
                return;
            }
            context.addEndHandler(ended -> allowance.release(partner));
        }
        if (context.request().version() == HttpVersion.HTTP_2) {
            // platform-http's own body handler resumes the stream, which an HTTP/2 request read here to its end refuses:
            // it reads the body, its declared size judged above, an undeclared one bounded by camel.server.maxBodySize
            context.next();
            return;
        }
        BodyHandler.create(false).setBodyLimit(entrance.maxBody()).handle(context);
    }

    /** A body that has not ended by the time-out is answered 408 and its connection closed. */
    private void cutWhenSlow(RoutingContext context) {
        HttpServerRequest request = context.request();
        if (request.isEnded()) {
            return;
        }
        long timer = context.vertx().setTimer(bodyTimeout.toMillis(), fired -> {
            if (!request.isEnded() && !context.response().ended()) {
                HttpAnswers.refuse(context, 408, "request_timeout", "the request body did not arrive within " + bodyTimeout.toMillis() + " ms");
            }
        });
        context.addEndHandler(ended -> context.vertx().cancelTimer(timer));
    }

    /**
     * A path Vert.x cannot decode (a broken percent escape) fails on the server's outer router, before Camel's routes
     * and this door: its 400 is answered there, in JSON on the bundle's paths. Camel keeps that router to itself, so
     * it is reached by reflection; where a Camel version names it otherwise, Vert.x's plain answer stays (logged once).
     */
    private void answerUnreadablePathsInJson(VertxPlatformHttpRouter router) {
        try {
            Field outer = VertxPlatformHttpServer.class.getDeclaredField("router");
            outer.setAccessible(true);
            Router main = (Router) outer.get(router.getServer());
            main.errorHandler(400, context -> {
                String path = context.request().path();
                if (path != null && entrances.stream().anyMatch(e -> path.startsWith(e.prefix()))) {
                    HttpAnswers.refuse(context, 400, "bad_request", "the request path could not be decoded");
                } else {
                    context.response().setStatusCode(400).end("Bad Request");
                }
            });
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("A request path that cannot be decoded is answered by Vert.x in plain text: {}", e.toString());
        }
    }

    /** The path segment after the prefix: {@code /v1/liveodds/42/fixtures} → {@code 42}. */
    private static String partnerOf(String path, String prefix) {
        int end = path.indexOf('/', prefix.length());
        return path.substring(prefix.length(), end < 0 ? path.length() : end);
    }

    /** Decoded as platform-http decodes it (Netty's decoder: {@code &} and {@code ;}), any case. */
    private static boolean hasQueryToken(RoutingContext context) {
        if (context.request().query() == null) {
            return false;
        }
        try {
            return context.queryParams().names().stream()
                    .anyMatch(name -> QUERY_TOKENS.stream().anyMatch(token -> token.equalsIgnoreCase(name.trim())));
        } catch (RuntimeException undecodable) {
            // a query that cannot be decoded is no way around the rule
            return true;
        }
    }

    /** A failure of a route of the bundle's paths (a body over its limit, a request Vert.x could not decode), in JSON. */
    private void failed(RoutingContext context) {
        String path = withoutTrailingSlash(context.normalizedPath());
        if (entrances.stream().noneMatch(e -> e.governs(path))) {
            // a host's path: its own failure handlers, or Vert.x's
            context.next();
            return;
        }
        int status = context.statusCode() >= 400 ? context.statusCode() : 500;
        if (status == 500) {
            LOG.error("HTTP request {} {} failed", context.request().method(), context.normalizedPath(), context.failure());
        }
        String error = switch (status) {
            case 400 -> "bad_request";
            case 413 -> "payload_too_large";
            default -> "internal_error";
        };
        HttpAnswers.refuse(context, status, error, status == 413 ? "the request body is larger than this path takes" : "the request could not be served");
    }
}
