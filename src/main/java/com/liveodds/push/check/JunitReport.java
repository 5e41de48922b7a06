package com.liveodds.push.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The checks as a JUnit XML report (the format CI servers read): one test case per check, a FAIL a failed test case,
 * a SKIP a skipped one; a WARN passes, its detail in the case's {@code system-out}.
 */
final class JunitReport {

    private JunitReport() {
    }

    static void write(Path file, String suite, List<CheckResult> results, Duration took) throws IOException {
        long failures = results.stream().filter(r -> r.verdict() == Verdict.FAIL).count();
        long skipped = results.stream().filter(r -> r.verdict() == Verdict.SKIP).count();
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .append("<testsuite name=\"").append(escape(suite)).append("\" tests=\"").append(results.size())
                .append("\" failures=\"").append(failures).append("\" errors=\"0\" skipped=\"").append(skipped)
                .append("\" time=\"").append(seconds(took)).append("\">\n");
        for (CheckResult result : results) {
            xml.append("  <testcase classname=\"").append(escape(suite)).append("\" name=\"").append(escape(result.check()))
                    .append("\" time=\"").append(seconds(result.took())).append("\">\n");
            switch (result.verdict()) {
                case FAIL -> xml.append("    <failure message=\"").append(escape(result.detail())).append("\" type=\"FAIL\"/>\n");
                case SKIP -> xml.append("    <skipped message=\"").append(escape(result.detail())).append("\"/>\n");
                default -> { }
            }
            xml.append("    <system-out>").append(escape(result.line())).append("</system-out>\n");
            xml.append("  </testcase>\n");
        }
        xml.append("</testsuite>\n");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, xml, StandardCharsets.UTF_8);
    }

    private static String seconds(Duration took) {
        return String.format(Locale.ROOT, "%.3f", took.toNanos() / 1e9);
    }

    private static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c < 0x20 ? ' ' : c);
            }
        }
        return out.toString();
    }
}
