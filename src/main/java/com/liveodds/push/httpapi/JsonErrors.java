package com.liveodds.push.httpapi;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.support.RoutePolicySupport;

/**
 * The answer of {@code camel.server.port} when no route takes a request: a JSON 404, like every other answer of our
 * API (Vert.x would send an HTML page). It is a catch-all with the lowest priority of the server's router (Camel's
 * routes live on a sub-router, whose error handlers the server never asks), so it runs only when no route matched
 * (which also covers a method a route does not take) and can never shadow one. Installed as the route policy of a
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
                            .handler(context -> answer(context, 404, "not_found", "nothing is served here for this method and path")));
        }
    }

    @Override
    public synchronized void onStop(Route route) {
        if (catchAll != null) {
            catchAll.remove();
            catchAll = null;
        }
    }

    private static void answer(RoutingContext context, int status, String error, String message) {
        if (!context.response().ended()) {
            context.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(HttpAnswers.errorBody(error, message));
        }
    }
}
