package com.liveodds.push.ops;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Properties;

import ch.qos.logback.core.PropertyDefinerBase;

/**
 * {@code liveodds.log.format} for logback.xml ({@code text} or {@code json}). Logback starts before Camel reads its
 * properties, so this reads the setting itself, with Camel's precedence: JVM system property, environment variable
 * {@code LIVEODDS_LOG_FORMAT}, then {@code application.properties} of {@code liveodds.home} (the working directory
 * by default). Anything but {@code json} is {@code text}.
 */
public class LogFormat extends PropertyDefinerBase {

    static final String KEY = "liveodds.log.format";

    @Override
    public String getPropertyValue() {
        String value = System.getProperty(KEY);
        if (value == null) {
            value = System.getenv("LIVEODDS_LOG_FORMAT");
        }
        if (value == null) {
            value = fromFile(Path.of(System.getProperty("liveodds.home", "."), "application.properties"));
        }
        return value != null && "json".equals(value.trim().toLowerCase(Locale.ROOT)) ? "json" : "text";
    }

    private static String fromFile(Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            properties.load(in);
            return properties.getProperty(KEY);
        } catch (IOException e) {
            return null;
        }
    }
}
