package com.liveodds.push.source.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;

import org.apache.camel.Route;
import org.apache.camel.component.platform.http.vertx.VertxPlatformHttpRouter;
import org.apache.camel.support.RoutePolicySupport;

/**
 * Route policy of the HTTP source: the body of {@code POST /v1/ingest} is the upstream message whatever
 * Content-Type the caller sent. Vert.x decodes {@code application/x-www-form-urlencoded} (what plain {@code curl -d}
 * sends) and multipart bodies as forms before any Camel step runs: a JSON message then becomes a form map (500), and
 * a large body breaks Vert.x's form limits and is refused with 400 before the bearer check. A handler ahead of the
 * route's own marks every request to the path as plain bytes, so the bearer check, the size check and the envelope
 * check see exactly what was sent.
 */
public class RawIngestBody extends RoutePolicySupport {

    private String path = "/v1/ingest";
    private io.vertx.ext.web.Route vertxRoute;

    public void setPath(String path) {
        this.path = path;
    }

    @Override
    public synchronized void onStart(Route route) {
        Router router = route.getCamelContext().getRegistry().findByType(VertxPlatformHttpRouter.class).stream()
                .filter(VertxPlatformHttpRouter::isMainServer).findFirst()
                .orElseThrow(() -> new IllegalStateException("no platform-http server for " + path));
        vertxRoute = router.route(path).order(Integer.MIN_VALUE).handler(context -> {
            context.request().headers().set(HttpHeaders.CONTENT_TYPE, "application/octet-stream");
            context.next();
        });
    }

    @Override
    public synchronized void onStop(Route route) {
        if (vertxRoute != null) {
            vertxRoute.remove();
            vertxRoute = null;
        }
    }
}
