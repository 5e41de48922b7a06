package com.liveodds.push;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.liveodds.push.check.CheckPartnerCommand;
import com.liveodds.push.settings.InvalidSettingException;
import com.liveodds.push.settings.StartupSettings;
import org.apache.camel.main.Main;
import org.apache.camel.main.MainListener;

/**
 * Starts the bundle standalone: {@code java -jar liveodds-push.jar [--config-dir DIR]}. The folder (default the working
 * directory, or {@code -Dliveodds.home}) holds {@code application.properties} (the user's settings over the bundle's
 * defaults) and {@code routes/}. In a host application none of this runs: routes/beans.yaml does the rest.
 */
public final class LiveoddsPush {

    /** camel-main's own options (MainCommandLineSupport), abbreviation and full name, and whether each takes a value. */
    private static final Map<String, Boolean> CAMEL_MAIN_OPTIONS = Map.ofEntries(
            Map.entry("-h", false), Map.entry("-help", false), Map.entry("-t", false), Map.entry("-trace", false),
            Map.entry("-ts", false), Map.entry("-traceStandby", false),
            Map.entry("-r", true), Map.entry("-routers", true), Map.entry("-d", true), Map.entry("-duration", true),
            Map.entry("-dm", true), Map.entry("-durationMaxMessages", true), Map.entry("-di", true),
            Map.entry("-durationIdle", true), Map.entry("-e", true), Map.entry("-exitcode", true),
            Map.entry("-pl", true), Map.entry("-propertiesLocation", true), Map.entry("-pro", true),
            Map.entry("-profile", true), Map.entry("-cwd", true), Map.entry("-compileWorkDir", true));
    private static final String USAGE = "usage: java -jar liveodds-push.jar [--config-dir DIR] [camel-main options, -help lists them]\n"
            + "       java -jar liveodds-push.jar check-partner --match match:<id> [--partner NAME] [--junit FILE] (check-partner --help)";

    private LiveoddsPush() {
    }

    public static void main(String[] args) throws Exception {
        // an untuned java -jar runs the service in a child JVM with the measured default options (DefaultJvm)
        int childExit = DefaultJvm.relaunchIfUntuned(args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        // the runnable's logging configuration, unless the user gives one (the plain jar ships no logback.xml)
        if (System.getProperty("logback.configurationFile") == null) {
            System.setProperty("logback.configurationFile", "liveodds/logback.xml");
        }
        List<String> camelArgs = new ArrayList<>();
        String home = System.getProperty("liveodds.home", ".");
        for (int i = 0; i < args.length; i++) {
            if ("--config-dir".equals(args[i]) && i + 1 < args.length) {
                home = args[++i];
            } else if (args[i].startsWith("--config-dir=")) {
                home = args[i].substring("--config-dir=".length());
            } else {
                camelArgs.add(args[i]);
            }
        }
        boolean check = !camelArgs.isEmpty() && CheckPartnerCommand.NAME.equals(camelArgs.get(0));
        String unknown = check ? null : unknownArgument(camelArgs);
        if (unknown != null) {
            // camel-main would print its usage, exit 0 and never start: a CI step or an orchestrator must see the error
            System.err.println("liveodds-push: " + unknown);
            System.err.println(USAGE);
            System.exit(CheckPartnerCommand.USAGE);
        }
        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        // logback starts with the first log line and reads liveodds.log.format from this folder (ops.LogFormat)
        System.setProperty("liveodds.home", homeDir.toString());
        try {
            requireHome(homeDir, check || camelArgs.contains("-h") || camelArgs.contains("-help"));
            Properties file = loadProperties(homeDir.resolve("application.properties"));
            if (check) {
                System.exit(CheckPartnerCommand.run(camelArgs.subList(1, camelArgs.size()), key -> lookup(file, key),
                        System.out, System.err));
            }
            StartupSettings.derive(key -> lookup(file, key));
        } catch (RuntimeException | IOException e) {
            // one line, no stack trace: the operator only needs to know which setting to give
            System.err.println("liveodds-push: cannot start: " + e.getMessage());
            System.exit(2);
        }
        Main main = createMain(homeDir);
        MainListener parentWatch = DefaultJvm.parentWatch();
        if (parentWatch != null) {
            main.addMainListener(parentWatch);
        }
        try {
            main.run(camelArgs.toArray(String[]::new));
        } catch (RuntimeException e) {
            // a setting that reads wrong only once its placeholders are resolved ({{other.key}}): its one line, no stack
            InvalidSettingException invalid = InvalidSettingException.in(e);
            if (invalid == null) {
                throw e;
            }
            System.err.println("liveodds-push: cannot start: " + invalid.getMessage());
            System.exit(2);
        }
        System.exit(main.getExitCode());
    }

    /** A camel-main configured exactly as the jar and {@code camel:run} use it; tests start it the same way. */
    public static Main createMain(Path homeDir) {
        Main main = new Main();
        main.setPropertyPlaceholderLocations("file:" + homeDir.resolve("application.properties"));
        main.addOverrideProperty("liveodds.home", homeDir.toString());
        main.addOverrideProperty("camel.main.routes-include-pattern", "file:" + homeDir.resolve("routes") + "/*.yaml");
        // camel-main maps environment variables of its own keys only for some prefixes; these are ours to honour
        for (String key : List.of("camel.server.host", "camel.server.port", "camel.management.host",
                "camel.management.port")) {
            String fromEnvironment = System.getenv(StartupSettings.environmentName(key));
            if (System.getProperty(key) == null && fromEnvironment != null) {
                main.addOverrideProperty(key, fromEnvironment);
            }
        }
        return main;
    }

    /** The first argument camel-main would not take (it prints its usage and exits 0 on one), or null. */
    static String unknownArgument(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            Boolean takesValue = CAMEL_MAIN_OPTIONS.get(args.get(i));
            if (takesValue == null) {
                String name = args.get(i).split("=", 2)[0];
                // the name only: a mistyped option could carry a secret as its value
                return (name.startsWith("-") ? "unknown option '" : "unknown command '")
                        + name.replaceAll("\\p{Cntrl}", "?") + "'";
            }
            if (takesValue) {
                i++;
            }
        }
        return null;
    }

    /**
     * The folder holds what the service reads; not asked of a run that starts no service (camel-main's help) or of
     * check-partner, which needs only settings (they may all come as -D).
     */
    private static void requireHome(Path homeDir, boolean startsNoService) {
        if (startsNoService) {
            return;
        }
        if (!Files.isRegularFile(homeDir.resolve("application.properties"))) {
            throw new IllegalStateException("no application.properties in " + homeDir
                    + ": run from the folder that holds it and routes/, or give it with --config-dir <folder>");
        }
        if (!Files.isDirectory(homeDir.resolve("routes"))) {
            throw new IllegalStateException("no routes/ folder in " + homeDir
                    + ": run from the folder that holds it and application.properties, or give it with --config-dir <folder>");
        }
    }

    private static Properties loadProperties(Path file) throws IOException {
        Properties properties = new Properties();
        if (Files.isRegularFile(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                properties.load(in);
            }
        }
        return properties;
    }

    /** Same precedence as Camel's property placeholders: system property, then environment, then the file. */
    private static String lookup(Properties file, String key) {
        String value = System.getProperty(key);
        if (value == null) {
            value = System.getenv(StartupSettings.environmentName(key));
        }
        return value != null ? value : file.getProperty(key);
    }
}
