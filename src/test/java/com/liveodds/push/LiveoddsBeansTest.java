package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.liveodds.push.queue.KeyedQueueComponent;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The bundle's beans made and wired by liveoddsBeans alone, in a plain CamelContext with nothing but the settings:
 * every bean the route files name is bound, a setting that does not read as its type stops start-up naming its key,
 * and a second copy (camel-main makes the beans of a route file twice) replaces the first and stops it.
 */
class LiveoddsBeansTest {

    /** A bean named by a route: {@code ref: liveoddsX}, {@code #bean:liveoddsX}, {@code bean:liveoddsX}. */
    private static final Pattern BEAN_IN_ROUTE = Pattern.compile("(?:ref: \"?|#bean:|\\bbean:)(liveodds[A-Z]\\w*)");

    private final CamelContext context = new DefaultCamelContext();

    @ParameterizedTest
    @ValueSource(strings = {"file", "http", "jms", "kafka"})
    void everyBeanTheRoutesNameIsBound(String source) throws Exception {
        try (CamelContext c = withSettings(Map.of("liveodds.source", source))) {
            install(c);
            Set<String> missing = new TreeSet<>();
            for (String name : beansNamedByRoutes()) {
                if (c.getRegistry().lookupByName(name) == null) {
                    missing.add(name);
                }
            }
            assertThat(missing).as("beans the routes name that liveoddsBeans did not bind").isEmpty();
        }
    }

    @Test
    void aSettingThatDoesNotReadAsItsTypeStopsStartUpNamingIt() throws Exception {
        try (CamelContext c = withSettings(Map.of("liveodds.source.kafka.look-back-records", "many"))) {
            assertThatThrownBy(() -> install(c)).rootCause()
                    .hasMessage("liveodds.source.kafka.look-back-records: not a whole number of at least 0: 'many'");
        }
    }

    @Test
    void aSecondCopyReplacesTheFirst() throws Exception {
        try (CamelContext c = withSettings(Map.of())) {
            install(c);
            KeyedQueueComponent first = c.getRegistry().lookupByNameAndType("liveoddsQueue", KeyedQueueComponent.class);
            install(c);
            KeyedQueueComponent second = c.getRegistry().lookupByNameAndType("liveoddsQueue", KeyedQueueComponent.class);
            assertThat(second).isNotNull().isNotSameAs(first);
        }
    }

    @Test
    void partnersShareTheMemoryOfTheQueuesAndOfTheJmsConsumersBuffers() throws Exception {
        Map<String, String> twoPartners = new java.util.HashMap<>(Map.of("liveodds.source", "jms", "liveodds.partners", "a,b"));
        for (String p : new String[] {"a", "b"}) {
            twoPartners.put("liveodds.partners." + p + ".id", p.equals("a") ? "1" : "2");
            twoPartners.put("liveodds.partners." + p + ".base-url", "http://127.0.0.1:9");
            twoPartners.put("liveodds.partners." + p + ".auth-url", "http://127.0.0.1:9");
            twoPartners.put("liveodds.partners." + p + ".client-id", "liveodds-push");
            twoPartners.put("liveodds.partners." + p + ".client-secret", "s3cret-" + p);
        }
        twoPartners.put("liveodds.delivery.queue-size", "1000");
        try (CamelContext c = new DefaultCamelContext()) {
            twoPartners.forEach(c.getPropertiesComponent()::addOverrideProperty);
            install(c);
            assertThat(c.getRegistry().lookupByNameAndType("liveoddsPartners", LiveoddsPartners.class).queueShare()).isEqualTo(500);
            assertThat(c.getRegistry().lookupByNameAndType("liveoddsJmsConnectionFactory", ActiveMQConnectionFactory.class)
                    .getConsumerWindowSize()).as("Artemis' 1 MiB shared by two partners").isEqualTo(512 * 1024);
        }
        twoPartners.put("liveodds.source.jms.url", "tcp://127.0.0.1:61616?consumerWindowSize=2048");
        try (CamelContext c = new DefaultCamelContext()) {
            twoPartners.forEach(c.getPropertiesComponent()::addOverrideProperty);
            install(c);
            assertThat(c.getRegistry().lookupByNameAndType("liveoddsJmsConnectionFactory", ActiveMQConnectionFactory.class)
                    .getConsumerWindowSize()).as("the URL's own choice").isEqualTo(2048);
        }
    }

    /** As camel-main does with routes/beans.yaml: binds liveoddsBeans, which installs as it is bound. */
    private static void install(CamelContext c) {
        c.getRegistry().unbind("liveoddsBeans");
        c.getRegistry().bind("liveoddsBeans", new LiveoddsBeans(), "install", null);
    }

    /** One real partner on loopback (no sandbox, so nothing is written into the repository's data/). */
    private CamelContext withSettings(Map<String, String> extra) {
        context.getPropertiesComponent().addOverrideProperty("liveodds.partner.id", "42");
        context.getPropertiesComponent().addOverrideProperty("liveodds.partner.base-url", "http://127.0.0.1:9");
        context.getPropertiesComponent().addOverrideProperty("liveodds.partner.auth-url", "http://127.0.0.1:9");
        context.getPropertiesComponent().addOverrideProperty("liveodds.partner.client-id", "liveodds-push");
        context.getPropertiesComponent().addOverrideProperty("liveodds.partner.client-secret", "s3cret");
        context.getPropertiesComponent().addOverrideProperty("liveodds.fixtures.auth.tokens", "fixtures-token");
        context.getPropertiesComponent().addOverrideProperty("liveodds.admin.tokens", "admin-token");
        extra.forEach(context.getPropertiesComponent()::addOverrideProperty);
        return context;
    }

    private static Set<String> beansNamedByRoutes() throws Exception {
        Set<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                Matcher m = BEAN_IN_ROUTE.matcher(Files.readString(file, StandardCharsets.UTF_8));
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        assertThat(names).as("the routes name the beans they use").contains("liveoddsHttpAnswers", "liveoddsDeliveries",
                "liveoddsSharedInbox", "liveoddsAdminPolicy");
        return names;
    }
}
