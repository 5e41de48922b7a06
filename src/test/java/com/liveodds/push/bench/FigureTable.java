package com.liveodds.push.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The bench's result: one row per figure (service, each baseline with the service's ratio to it, the goal, PASS/MISS),
 * and one line per run.
 */
final class FigureTable {

    /** A baseline's figure and the service's ratio to it. */
    record Cell(String value, String ratio) {
        static final Cell NONE = new Cell("—", "—");
    }

    private record Row(String figure, String service, Cell camel, Cell raw, String goal, String verdict) {
        String line(String separator) {
            return String.join(separator, figure, service, camel.value(), camel.ratio(), raw.value(), raw.ratio(), goal, verdict);
        }
    }

    private final List<Row> rows = new ArrayList<>();
    private final List<String> runs = new ArrayList<>();
    private String label = "";

    /** Appended to the figure of every row added from now on (the service's variant of -Dbench.compare). */
    void label(String label) {
        this.label = label;
    }

    /**
     * A figure next to the camel-http client's and the raw client's ({@link Cell#NONE}: not measured), with a verdict:
     * met is null when the goal could not be judged (a run did not finish, or no goal).
     */
    void add(String figure, String service, Cell camel, Cell raw, String goal, Boolean met) {
        Row row = new Row(figure + label, service, camel, raw, goal, met == null ? "n/a" : met ? "PASS" : "MISS");
        rows.add(row);
        // printed as it comes too: a bench stopped half-way still leaves its figures in the build log
        System.out.println("BENCH figure: " + row.line(" | "));
    }

    void run(String line) {
        runs.add(line);
        System.out.println("BENCH run: " + line);
    }

    static String ratio(double service, double baseline) {
        return baseline > 0 && !Double.isNaN(service) ? String.format("%.2f", service / baseline) : "—";
    }

    static String number(double value) {
        if (Double.isNaN(value)) {
            return "—";
        }
        return value >= 100 ? String.format("%,.0f", value) : String.format("%.1f", value);
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("| figure | service | camel-http client | ÷ camel | raw client | ÷ raw | goal | |\n|---|---|---|---|---|---|---|---|\n");
        for (Row r : rows) {
            out.append("| ").append(r.line(" | ")).append(" |\n");
        }
        out.append("\nRuns:\n");
        for (String run : runs) {
            out.append("- ").append(run).append('\n');
        }
        return out.toString();
    }
}
