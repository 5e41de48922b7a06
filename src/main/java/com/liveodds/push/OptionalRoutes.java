package com.liveodds.push;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.StartupListener;
import org.apache.camel.model.Model;

/**
 * Starts the routes that only some settings want: the active source's route of routes/source-file.yaml or
 * source-http.yaml, the embedded sandbox's and the demo producer's. Those routes say {@code autoStartup: false} (the
 * YAML DSL schema wants a literal there, not a placeholder), and this bean starts the chosen ones once the CamelContext
 * has started. The routes made per partner from a source's template (liveoddsPartners) start with the context.
 */
public class OptionalRoutes implements CamelContextAware, StartupListener {

    private static final List<String> SANDBOX_ROUTES = List.of("liveodds-sandbox-token", "liveodds-sandbox-partner");
    private static final String DEMO_ROUTE = "liveodds-demo-producer";

    private CamelContext context;
    private String source = "file";
    private boolean sandbox;
    private boolean demo;
    private LiveoddsPartners partners;

    public void setSource(String source) {
        this.source = source.trim().toLowerCase(Locale.ROOT);
    }

    public void setSandbox(boolean sandbox) {
        this.sandbox = sandbox;
    }

    public void setPartners(LiveoddsPartners partners) {
        this.partners = partners;
    }

    public void setDemo(boolean demo) {
        this.demo = demo;
    }

    /** Runs when beans.yaml loads: the routes start once the context has started, or at once when it already runs. */
    public void install() throws Exception {
        if (context.isStarted()) {
            startChosen(context);
        } else {
            context.addStartupListener(this);
        }
    }

    /** The ids of the routes to start, the sandbox before the source that may push to it. */
    private List<String> chosen() {
        List<String> ids = new ArrayList<>();
        if (sandbox) {
            ids.addAll(SANDBOX_ROUTES);
        }
        // the source's one route (its routes of each partner, made from the source's template, start with the context);
        // a source with a route shared by the partners of a list (the file source's listing of the inbox) keeps its one
        // route stopped then, and starts the shared one
        String sourceRoute = "liveodds-source-" + source;
        boolean list = partners.partners().stream().anyMatch(p -> !p.isSingle());
        boolean shared = list && context.getCamelContextExtension().getContextPlugin(Model.class)
                .getRouteDefinition(sourceRoute + "-shared") != null;
        if (!shared) {
            ids.add(sourceRoute);
        } else {
            ids.add(sourceRoute + "-shared");
        }
        if (demo) {
            ids.add(DEMO_ROUTE);
        }
        return ids;
    }

    /** Camel calls this after each route it starts later on too: nothing to do then. */
    @Override
    public void onCamelContextStarted(CamelContext context, boolean alreadyStarted) {
    }

    @Override
    public void onCamelContextFullyStarted(CamelContext context, boolean alreadyStarted) throws Exception {
        startChosen(context);
    }

    /**
     * A route that is not there (a copy of this bean that camel-main makes early, before the partners' routes) is
     * skipped, and so is one that runs: each partner's source route starts with the context (liveoddsPartners makes it
     * only for the source chosen), and starting a route once the context runs costs every exchange (camel-main's HTTP
     * servers then add an event notifier, a list Camel walks at every asynchronous step).
     */
    private void startChosen(CamelContext context) throws Exception {
        for (String id : chosen()) {
            if (context.getRoute(id) != null && !context.getRouteController().getRouteStatus(id).isStarted()) {
                context.getRouteController().startRoute(id);
            }
        }
        // a partner paused before the restart: its source is held before its first poll
        partners.holdPaused();
    }

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }
}
