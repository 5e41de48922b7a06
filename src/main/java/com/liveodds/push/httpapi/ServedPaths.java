package com.liveodds.push.httpapi;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.PlatformHttpEndpoint;
import org.apache.camel.component.rest.RestEndpoint;

/**
 * Which methods the routes of a CamelContext serve on an HTTP path, and by which routes: each REST DSL verb and each
 * {@code platform-http} route with {@code httpMethodRestrict}, read from the routes themselves. (platform-http's own
 * list keeps one entry per path, so it names one verb of a path that several REST verbs serve, and often no route.)
 * Read again only when the number of routes changed.
 */
public final class ServedPaths {

    /** One method on one path template, and the route that serves it. */
    private record Served(Pattern path, String method, String routeId) {
    }

    private final CamelContext camel;
    private volatile List<Served> served = List.of();
    private volatile int readAt = -1;

    public ServedPaths(CamelContext camel) {
        this.camel = camel;
    }

    /** The methods served on this path by the routes the filter takes (their ids), sorted and comma-separated. */
    public String methods(String path, Predicate<String> routes) {
        return current().stream().filter(s -> routes.test(s.routeId()) && s.path().matcher(path).matches())
                .map(Served::method).collect(Collectors.toCollection(TreeSet::new)).stream().collect(Collectors.joining(", "));
    }

    private List<Served> current() {
        int routes = camel.getRoutesSize();
        if (routes != readAt) {
            served = read(camel);
            readAt = routes;
        }
        return served;
    }

    /** From the routes themselves, so that each method is known with its route id. */
    private static List<Served> read(CamelContext camel) {
        List<Served> all = new ArrayList<>();
        for (Route route : camel.getRoutes()) {
            if (route.getEndpoint() instanceof RestEndpoint rest && rest.getMethod() != null) {
                String path = (rest.getPath() == null ? "" : rest.getPath()) + (rest.getUriTemplate() == null ? "" : rest.getUriTemplate());
                all.add(new Served(template(path), rest.getMethod().toUpperCase(Locale.ROOT), route.getRouteId()));
            } else if (route.getEndpoint() instanceof PlatformHttpEndpoint http && http.getHttpMethodRestrict() != null) {
                Arrays.stream(http.getHttpMethodRestrict().split(",")).map(m -> m.trim().toUpperCase(Locale.ROOT))
                        .forEach(method -> all.add(new Served(template(http.getPath()), method, route.getRouteId())));
            }
        }
        return List.copyOf(all);
    }

    /** {@code /v1/liveodds/{partnerId}/fixtures} as a pattern: each {@code {name}} is one path segment. */
    private static Pattern template(String uri) {
        return Pattern.compile(Arrays.stream(uri.split("\\{[^/}]*}", -1)).map(Pattern::quote).collect(Collectors.joining("[^/]+")));
    }
}
