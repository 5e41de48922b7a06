package com.liveodds.push.httpapi;

import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.HttpEndpointModel;
import org.apache.camel.component.platform.http.PlatformHttpComponent;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.support.RoutePolicySupport;

/**
 * The answer of {@code camel.server.port} when no route takes a request, in JSON like every other answer of our API
 * (Vert.x would send an HTML page): 405 (with {@code Allow}) when a route serves the path with other methods only, such
 * as a method the REST DSL does not serve (no token is needed to learn that), else 404. It is a catch-all with the lowest priority of the server's router (Camel's
 * routes live on a sub-router, whose error handlers the server never asks), so it runs only when no route matched
 * and can never shadow one. Installed as the route policy of a
 * route that always runs on that port (the fixtures API).
 */
public class JsonErrors extends RoutePolicySupport {

    /** The endpoints' path templates, compiled once (the door asks for every request of our paths). */
    private static final Map<String, Pattern> TEMPLATES = new ConcurrentHashMap<>();

    private io.vertx.ext.web.Route catchAll;

    @Override
    public synchronized void onStart(Route route) {
        if (catchAll == null) {
            route.getCamelContext().getRegistry().findByType(VertxPlatformHttpRouter.class).stream()
                    .filter(VertxPlatformHttpRouter::isMainServer).findFirst()
                    .ifPresent(router -> catchAll = router.route().order(Integer.MAX_VALUE)
                            .handler(context -> notServed(route.getCamelContext(), context)));
        }
    }

    @Override
    public synchronized void onStop(Route route) {
        if (catchAll != null) {
            catchAll.remove();
            catchAll = null;
        }
    }

    /** 405 with the methods served when a route serves the path with other methods only, else 404. */
    private static void notServed(CamelContext camel, RoutingContext context) {
        if (context.response().ended()) {
            return;
        }
        String allowed = allowedMethods(camel, context.normalizedPath());
        if (allowed.isEmpty()) {
            answer(context, 404, "not_found", "nothing is served here for this path");
        } else {
            context.response().putHeader(HttpHeaders.ALLOW, allowed);
            answer(context, 405, "method_not_allowed", "use " + allowed);
        }
    }

    /** The methods the routes serve on this path, sorted and comma-separated; empty when none serves it. */
    public static String allowedMethods(CamelContext camel, String path) {
        if (!(camel.hasComponent("platform-http") instanceof PlatformHttpComponent http)) {
            return "";
        }
        // a copy: routes may be added meanwhile (the set is not made for concurrent reading)
        List<HttpEndpointModel> endpoints;
        try {
            endpoints = List.copyOf(http.getHttpEndpoints());
        } catch (ConcurrentModificationException changed) {
            endpoints = List.copyOf(http.getHttpEndpoints());
        }
        return endpoints.stream()
                .filter(endpoint -> endpoint.getVerbs() != null && template(endpoint.getUri()).matcher(path).matches())
                .flatMap(endpoint -> Arrays.stream(endpoint.getVerbs().split(",")))
                .map(String::trim).distinct().sorted().collect(Collectors.joining(", "));
    }

    /** {@code /v1/liveodds/{partnerId}/fixtures} as a pattern: each {@code {name}} is one path segment. */
    private static Pattern template(String uri) {
        return TEMPLATES.computeIfAbsent(uri, JsonErrors::compile);
    }

    private static Pattern compile(String uri) {
        return Pattern.compile(Arrays.stream(uri.split("\\{[^/}]*}", -1)).map(Pattern::quote).collect(Collectors.joining("[^/]+")));
    }

    private static void answer(RoutingContext context, int status, String error, String message) {
        context.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(HttpAnswers.errorBody(error, message));
    }
}
