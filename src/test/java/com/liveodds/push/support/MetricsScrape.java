package com.liveodds.push.support;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of {@code /observe/metrics} (Prometheus text format): each series name with its samples summed. */
public final class MetricsScrape {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})?\\s+(\\S+)");
    private final Map<String, Double> sums = new LinkedHashMap<>();

    private MetricsScrape(String text) {
        for (String line : text.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.find()) {
                sums.merge(m.group(1), Double.parseDouble(m.group(3)), Double::sum);
            }
        }
    }

    public static MetricsScrape of(RunningService service) throws Exception {
        var response = service.management("/observe/metrics");
        if (response.statusCode() != 200) {
            throw new IllegalStateException("/observe/metrics answered " + response.statusCode());
        }
        return new MetricsScrape(response.body());
    }

    /** A scrape of the metrics a service process serves on {@code camel.management.port}. */
    public static MetricsScrape of(int managementPort) throws Exception {
        var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + managementPort + "/observe/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("/observe/metrics answered " + response.statusCode());
        }
        return new MetricsScrape(response.body());
    }

    /** The series' samples summed over their labels; null when the series is not exposed. */
    public Double value(String name) {
        return sums.get(name);
    }

    public Set<String> names() {
        return sums.keySet();
    }
}
