package com.liveodds.push;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

import com.liveodds.push.settings.StartupSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.main.BaseMainSupport;
import org.apache.camel.main.MainListenerSupport;
import org.apache.camel.spi.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one camel-main hook of the bundle: before the route files are read, adds the derived settings (sandbox or
 * real partner, active source) on top of the user's. Everything else is in {@code routes/}.
 */
public class LiveoddsSettings extends MainListenerSupport {

    private static final Logger LOG = LoggerFactory.getLogger(LiveoddsSettings.class);

    @Override
    public void beforeConfigure(BaseMainSupport main) {
        apply(main.getCamelContext());
    }

    /** Also usable on a CamelContext that camel-main does not run. */
    public static void apply(CamelContext context) {
        PropertiesComponent properties = context.getPropertiesComponent();
        Map<String, String> derived = StartupSettings.derive(key -> properties.resolveProperty(key).orElse(null));
        derived.forEach(properties::addOverrideProperty);

        if (Boolean.parseBoolean(derived.get("liveodds.sandbox.enabled"))) {
            String port = properties.resolveProperty("camel.server.port").orElse("8080");
            LOG.info("No partner settings given: running the embedded partner sandbox and demo card on 127.0.0.1:{}", port);
            if (derived.containsKey("liveodds.fixtures.auth.tokens")) {
                // the token itself never goes to the log: it is written to a file only this user can read
                Path tokenFile = Path.of(properties.resolveProperty("liveodds.sandbox.token-file").orElseThrow());
                try {
                    writeOwnerOnly(tokenFile, derived.get("liveodds.fixtures.auth.tokens"));
                    LOG.info("Sandbox fixtures and admin token written to {}: curl -H \"Authorization: Bearer $(cat {})\" "
                            + "http://127.0.0.1:{}/v1/liveodds/{}/fixtures", tokenFile, tokenFile, port,
                            properties.resolveProperty("liveodds.partner.id").orElse(StartupSettings.SANDBOX_PARTNER_ID));
                } catch (IOException e) {
                    LOG.warn("Cannot write the sandbox token to {}: {}", tokenFile, e.getMessage());
                }
            }
        } else {
            LOG.info("Pushing to partner {} as partner id {}", properties.resolveProperty("liveodds.partner.base-url").orElse("?"),
                    properties.resolveProperty("liveodds.partner.id").orElse("?"));
        }
    }

    private static void writeOwnerOnly(Path file, String content) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.deleteIfExists(file);
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (UnsupportedOperationException notPosix) {
            Files.createFile(file);
        }
        Files.writeString(file, content);
    }
}
