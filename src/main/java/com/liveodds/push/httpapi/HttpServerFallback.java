package com.liveodds.push.httpapi;

import org.apache.camel.CamelContext;
import org.apache.camel.component.platform.http.main.DefaultMainHttpServerFactory;
import org.apache.camel.component.platform.http.main.MainHttpServer;
import org.apache.camel.main.HttpServerConfigurationProperties;
import org.apache.camel.StartupListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fixtures API, the HTTP source and the admin endpoints are platform-http routes: they need the application's
 * HTTP server. When the application runs none ({@code camel.server.enabled} not set), this starts Camel's own one
 * on {@code camel.server.host}:{@code camel.server.port} (default 0.0.0.0:8080) just before the routes are built,
 * exactly as camel-main would with {@code camel.server.enabled=true}. An application that runs its server keeps it.
 * A start-up listener of the bundle's own, not a lifecycle strategy: it sees nothing else of the host's context.
 */
public class HttpServerFallback implements StartupListener {

    private static final Logger LOG = LoggerFactory.getLogger(HttpServerFallback.class);

    /** Before the routes start, so their consumers find the server. */
    @Override
    public void onCamelContextStarting(CamelContext context, boolean alreadyStarted) {
        if (context.hasService(MainHttpServer.class) != null) {
            return;
        }
        HttpServerConfigurationProperties settings = new HttpServerConfigurationProperties(null);
        settings.setEnabled(true);
        settings.setHost(context.getPropertiesComponent().resolveProperty("camel.server.host").orElse("0.0.0.0"));
        settings.setPort(Integer.parseInt(context.getPropertiesComponent().resolveProperty("camel.server.port").orElse("8080")));
        LOG.info("No HTTP server in this application: starting Camel's platform-http server on {}:{} for the liveodds-push "
                + "fixtures API (camel.server.* configure it)", settings.getHost(), settings.getPort());
        try {
            context.addService(new DefaultMainHttpServerFactory().newHttpServer(context, settings), true, true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the HTTP server on " + settings.getHost() + ":" + settings.getPort(), e);
        }
    }

    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
        // the server is up by now
    }
}
