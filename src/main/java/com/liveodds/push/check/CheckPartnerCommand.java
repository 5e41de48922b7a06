package com.liveodds.push.check;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.liveodds.push.ops.SecretMask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar liveodds-push.jar check-partner --match match:<id>}: checks a partner's side of the interface
 * before it goes live (contract section 18) and exits 0 when no check failed, 1 when one did, 2 on a usage or
 * settings error. Plain Java: no CamelContext is started.
 */
public final class CheckPartnerCommand {

    public static final String NAME = "check-partner";
    public static final int PASSED = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    static final String USAGE_TEXT = """
            usage: java -jar liveodds-push.jar check-partner --match match:<id> [--partner NAME] [--junit FILE] [--pushes N] [--config-dir DIR]
              --match match:<id>  the partner's test match: the only match pushed to (every message type, settlements included)
              --partner NAME      partner NAME of liveodds.partners (default: the partner of liveodds.partner.*)
              --junit FILE        also write the checks as JUnit XML (a FAIL is a failed test case)
              --pushes N          heartbeats the latency is measured over (default 20, at most 1000)
              --config-dir DIR    the folder of application.properties (default: the working directory)
            exit status: 0 nothing failed, 1 a check failed, 2 usage or settings error""";
    /** What the partner does itself once live (contract 20), with its fixtures token, on this service's API port. */
    static final String NEXT_STEPS = """
            check-partner: once live, the partner books its matches and asks for recovery itself, on this service's \
            camel.server.port with its fixtures token:
              PUT  /v1/liveodds/%1$s/booking/match:<id>   book a match (DELETE unbooks; GET /v1/liveodds/%1$s/booking lists)
              POST /v1/liveodds/%1$s/recovery   {"after": "<ISO-8601 UTC>"} or {"match": "match:<id>"}: current odds and \
            settlements pushed again; GET /v1/liveodds/%1$s/recovery/<request_id> tells how far it got
            """;
    private static final int DEFAULT_PUSHES = 20;
    private static final int MAX_PUSHES = 1000;

    private CheckPartnerCommand() {
    }

    /**
     * @param args   the arguments after {@code check-partner}, {@code --config-dir} already taken out
     * @param lookup a setting's effective value (system property, environment variable, application.properties)
     * @return the exit status
     */
    public static int run(List<String> args, Function<String, String> lookup, PrintStream out, PrintStream err) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("liveodds-push check-partner: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        }
        if (options.help()) {
            out.println(USAGE_TEXT);
            return PASSED;
        }
        quietLogging();
        long started = System.nanoTime();
        PartnerUnderCheck partner;
        try {
            partner = options.partner() == null ? PartnerUnderCheck.single(lookup) : PartnerUnderCheck.ofPartners(options.partner(), lookup);
        } catch (RuntimeException e) {
            // the messages name keys, never values
            err.println("liveodds-push check-partner: " + e.getMessage());
            return USAGE;
        }
        SecretMask mask = new SecretMask();
        mask.setClientSecret(partner.clientSecret());
        mask.setTrustStorePassword(partner.trustStorePassword());
        mask.setKeyStorePassword(partner.keyStorePassword());
        out.println("check-partner: " + partner + (partner.sandbox() ? " (the embedded sandbox: no partner setting given)" : "")
                + ", base-url " + partner.baseUrl() + ", auth-url " + partner.authUrl() + ", test match " + options.match());
        List<CheckResult> results = new PartnerChecks(partner, options.match(), options.pushes(), mask).run();
        results.forEach(result -> out.println(result.line()));
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        long failed = results.stream().filter(r -> r.verdict() == Verdict.FAIL).count();
        long warned = results.stream().filter(r -> r.verdict() == Verdict.WARN).count();
        long skipped = results.stream().filter(r -> r.verdict() == Verdict.SKIP).count();
        out.println("check-partner: " + (results.size() - failed - warned - skipped) + " passed, " + warned + " warned, "
                + failed + " failed, " + skipped + " skipped in " + took.toMillis() + " ms");
        if (failed == 0) {
            out.printf(NEXT_STEPS, partner.id());
        }
        if (options.junit() != null) {
            try {
                JunitReport.write(options.junit(), NAME, results, took);
            } catch (IOException e) {
                err.println("liveodds-push check-partner: cannot write --junit " + options.junit() + ": " + e.getMessage());
                return FAILED;
            }
        }
        return failed == 0 ? PASSED : FAILED;
    }

    /** The check's lines are the output: the service's info logging (token obtained...) would only interleave. */
    private static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            logback.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.ERROR);
        }
    }

    /** The command line of the check. */
    record Options(String match, String partner, Path junit, int pushes, boolean help) {

        static Options parse(List<String> args) {
            String match = null;
            String partner = null;
            Path junit = null;
            int pushes = DEFAULT_PUSHES;
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.equals("--help") || arg.equals("-h")) {
                    return new Options(null, null, null, 0, true);
                }
                int equals = arg.indexOf('=');
                String name = arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
                if (!List.of("--match", "--partner", "--junit", "--pushes").contains(name)) {
                    // the name only: a mistyped option could carry a secret as its value
                    throw new IllegalArgumentException((arg.startsWith("-") ? "unknown option " : "unexpected argument ")
                            + quote(name));
                }
                String value;
                if (equals > 0) {
                    value = arg.substring(equals + 1);
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                switch (name) {
                    case "--match" -> match = value;
                    case "--partner" -> partner = value;
                    case "--junit" -> junit = Path.of(value);
                    default -> pushes = pushes(value);
                }
            }
            if (match == null) {
                throw new IllegalArgumentException("--match match:<id> is required (the partner's test match)");
            }
            if (!match.matches("match:[0-9]{1,19}")) {
                throw new IllegalArgumentException("--match must be match:<digits>, not " + quote(match));
            }
            if (partner != null && !partner.matches("[a-z0-9-]{1,32}")) {
                throw new IllegalArgumentException("--partner must be a partner name of liveodds.partners ([a-z0-9-]{1,32}), not "
                        + quote(partner));
            }
            return new Options(match, partner, junit, pushes, false);
        }

        private static int pushes(String value) {
            try {
                int n = Integer.parseInt(value);
                if (n >= 1 && n <= MAX_PUSHES) {
                    return n;
                }
            } catch (NumberFormatException notANumber) {
                // reported below
            }
            throw new IllegalArgumentException("--pushes must be a number from 1 to " + MAX_PUSHES + ", not " + quote(value));
        }

        /** A bounded, printable echo of what the user typed. */
        private static String quote(String text) {
            String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
            return "'" + shown.replaceAll("\\p{Cntrl}", "?") + "'";
        }
    }
}
