package com.liveodds.push;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.WeakHashMap;

import com.liveodds.push.httpapi.HttpServerFallback;
import com.liveodds.push.settings.InvalidSettingException;
import com.liveodds.push.settings.PartnerSettings;
import com.liveodds.push.settings.StartupSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.spi.PropertiesComponent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bundle's settings in whatever CamelContext loads its routes (the standalone's or a host application's): the
 * first bean liveoddsBeans makes, so it runs before any setting of the bundle is read (beans are created while
 * routes/beans.yaml loads, route placeholders only when the routes are built). It adds the
 * bundle's defaults below everything the host sets, works out the derived settings (sandbox or real partner, kafka
 * milliseconds...) or stops start-up naming a missing key, and registers what the routes refer to under liveodds
 * names. It changes nothing the host owns: no component, no other setting.
 */
public class LiveoddsSettings implements CamelContextAware {

    /** The bundle's defaults, inside its jar. */
    private static final String DEFAULTS = "liveodds/defaults.properties";

    private static final Logger LOG = LoggerFactory.getLogger(LiveoddsSettings.class);
    /** camel-main creates the beans of a route file twice (once early for its auto-configuration): say things once. */
    private static final Set<CamelContext> ANNOUNCED =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private CamelContext context;

    @Override
    public void setCamelContext(CamelContext context) {
        this.context = context;
    }

    @Override
    public CamelContext getCamelContext() {
        return context;
    }

    /**
     * Runs when beans.yaml loads; camel-main loads it twice (see {@link #ANNOUNCED}), and the second time, after its
     * auto-configuration, what is applied here must hold again. Deriving again changes nothing: the derived values
     * are in place by then.
     */
    public void apply() throws Exception {
        PropertiesComponent properties = context.getPropertiesComponent();
        defaults().forEach((key, value) -> properties.addInitialProperty((String) key, (String) value));
        boolean firstTime = ANNOUNCED.add(context);

        Map<String, String> derived;
        try {
            derived = StartupSettings.derive(key -> properties.resolveProperty(key).orElse(null));
        } catch (IllegalArgumentException | IllegalStateException e) {
            // one line naming the key; the exception stops the host's start-up
            if (firstTime) {
                LOG.error("liveodds-push cannot start: {}", e.getMessage());
            }
            throw e instanceof InvalidSettingException ? e : new InvalidSettingException(e.getMessage(), e);
        }
        derived.forEach(properties::addOverrideProperty);

        if (!firstTime) {
            return;
        }
        context.addStartupListener(new HttpServerFallback());
        if (Boolean.parseBoolean(derived.get("liveodds.sandbox.enabled"))) {
            announceSandbox(properties, derived.containsKey(PartnerSettings.LIST),
                    Boolean.parseBoolean(derived.get(StartupSettings.TOKEN_GENERATED)));
        } else if (!PartnerSettings.isList(key -> properties.resolveProperty(key).orElse(null))) {
            // one partner; each partner of a list is announced by liveoddsPartners
            LOG.info("Pushing to partner {} as partner id {}", properties.resolveProperty("liveodds.partner.base-url").orElse("?"),
                    properties.resolveProperty("liveodds.partner.id").orElse("?"));
        }
    }

    private static Properties defaults() {
        Properties defaults = new Properties();
        try (InputStream in = LiveoddsSettings.class.getClassLoader().getResourceAsStream(DEFAULTS)) {
            if (in == null) {
                throw new IllegalStateException(DEFAULTS + " is missing from the class path");
            }
            defaults.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return defaults;
    }

    /** @param twoPartners the embedded default's sandbox-a and sandbox-b (not partners the settings gave) */
    private static void announceSandbox(PropertiesComponent properties, boolean twoPartners, boolean tokenGenerated) {
        String port = properties.resolveProperty("camel.server.port").orElse("8080");
        LOG.info("No partner settings given: running the embedded partner sandbox and demo card on 127.0.0.1:{}{}", port,
                twoPartners ? " with partners sandbox-a (booking all) and sandbox-b (booking " + StartupSettings.SANDBOX_B_BOOKING + ")" : "");
        if (!tokenGenerated) {
            return;
        }
        // the tokens themselves never go to the log: each is written to a file only this user can read
        Path tokenFile = Path.of(properties.resolveProperty("liveodds.sandbox.token-file").orElseThrow());
        if (!twoPartners) {
            writeToken(tokenFile, properties.resolveProperty("liveodds.fixtures.auth.tokens").orElseThrow(),
                    "Sandbox fixtures and admin token", port,
                    properties.resolveProperty("liveodds.partner.id").orElse(StartupSettings.SANDBOX_PARTNER_ID));
            return;
        }
        // sandbox-a's token is the one of liveodds.sandbox.token-file (and the admin token); sandbox-b's goes beside it
        for (StartupSettings.SandboxPartner partner : StartupSettings.SANDBOX_PARTNERS) {
            boolean first = partner == StartupSettings.SANDBOX_PARTNERS.get(0);
            Path file = first ? tokenFile : tokenFile.resolveSibling(tokenFile.getFileName() + "-" + partner.name().substring("sandbox-".length()));
            writeToken(file, properties.resolveProperty(PartnerSettings.LIST + "." + partner.name() + ".fixtures-tokens").orElseThrow(),
                    first ? "Sandbox fixtures and admin token of partner " + partner.name()
                            : "Sandbox fixtures token of partner " + partner.name(), port, partner.id());
        }
    }

    private static void writeToken(Path file, String token, String what, String port, String partnerId) {
        try {
            writeOwnerOnly(file, token);
            LOG.info("{} written to {}: curl -H \"Authorization: Bearer $(cat {})\" http://127.0.0.1:{}/v1/liveodds/{}/fixtures",
                    what, file, file, port, partnerId);
        } catch (IOException e) {
            LOG.warn("Cannot write the sandbox token to {}: {}", file, e.getMessage());
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
