package com.liveodds.push.httpapi;


import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
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
        String allowed = served(camel).methods(context.normalizedPath(), routeId -> true);
        if (allowed.isEmpty()) {
            HttpAnswers.refuse(context, 404, "not_found", "nothing is served here for this path");
        } else {
            context.response().putHeader(HttpHeaders.ALLOW, allowed);
            HttpAnswers.refuse(context, 405, "method_not_allowed", "use " + allowed);
        }
    }

    /** The context's {@link ServedPaths}, one for the context (the door asks it too). */
    public static ServedPaths served(CamelContext camel) {
        ServedPaths known = camel.getCamelContextExtension().getContextPlugin(ServedPaths.class);
        return known != null ? known : register(camel);
    }

    private static synchronized ServedPaths register(CamelContext camel) {
        ServedPaths known = camel.getCamelContextExtension().getContextPlugin(ServedPaths.class);
        if (known == null) {
            known = new ServedPaths(camel);
            camel.getCamelContextExtension().addContextPlugin(ServedPaths.class, known);
        }
        return known;
    }
}
