package com.liveodds.push;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import com.liveodds.push.partner.PartnerClient;
import com.liveodds.push.settings.StartupSettings;
import org.apache.camel.main.Main;

/**
 * Starts the bundle standalone: {@code java -jar liveodds-push.jar [--config-dir DIR]}. The folder (default the working
 * directory, or {@code -Dliveodds.home}) holds {@code application.properties} (the user's settings over the bundle's
 * defaults) and {@code routes/}. In a host application none of this runs: routes/beans.yaml does the rest.
 */
public final class LiveoddsPush {

    private LiveoddsPush() {
    }

    public static void main(String[] args) throws Exception {
        // an untuned java -jar runs the service in a child JVM with the measured default options (DefaultJvm)
        int childExit = DefaultJvm.relaunchIfUntuned(args);
        if (childExit >= 0) {
            System.exit(childExit);
        }
        // before anything touches the common pool: the JDK HTTP client hands every answer to it, and below a
        // parallelism of 2 (any machine with 2 cores or fewer) it is a new thread per answer
        if (System.getProperty(PartnerClient.COMMON_POOL_PARALLELISM) == null) {
            System.setProperty(PartnerClient.COMMON_POOL_PARALLELISM, "2");
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
        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        // logback starts with the first log line and reads liveodds.log.format from this folder (ops.LogFormat)
        System.setProperty("liveodds.home", homeDir.toString());
        try {
            Properties file = loadProperties(homeDir.resolve("application.properties"));
            StartupSettings.derive(key -> lookup(file, key));
        } catch (RuntimeException | IOException e) {
            // one line, no stack trace: the operator only needs to know which setting to give
            System.err.println("liveodds-push: cannot start: " + e.getMessage());
            System.exit(2);
        }
        Main main = createMain(homeDir);
        main.run(camelArgs.toArray(String[]::new));
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
