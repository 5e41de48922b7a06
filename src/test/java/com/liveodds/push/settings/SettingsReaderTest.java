package com.liveodds.push.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** SettingsReader alone: a setting read as the type a bean takes, or one line naming the key that does not read. */
class SettingsReaderTest {

    @Test
    void readsEachTypeWithPlaceholdersInsideResolved() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            context.getPropertiesComponent().addInitialProperty("reader.home", "/srv/liveodds");
            context.getPropertiesComponent().addInitialProperty("inbox", "{{reader.home}}/data/inbox");
            context.getPropertiesComponent().addInitialProperty("wait", "250ms");
            context.getPropertiesComponent().addInitialProperty("size", " 12 ");
            context.getPropertiesComponent().addInitialProperty("on", "TRUE");
            SettingsReader settings = new SettingsReader(context);
            assertThat(settings.text("inbox")).isEqualTo("/srv/liveodds/data/inbox");
            assertThat(settings.text("missing", "")).isEmpty();
            assertThat(settings.duration("wait")).isEqualTo(Duration.ofMillis(250));
            assertThat(settings.count("size", 1)).isEqualTo(12);
            assertThat(settings.number("missing", 16L)).isEqualTo(16L);
            assertThat(settings.flag("on")).isTrue();
        }
    }

    @Test
    void aValueThatDoesNotReadAsItsTypeNamesItsKey() throws Exception {
        try (CamelContext context = new DefaultCamelContext()) {
            context.getPropertiesComponent().addInitialProperty("wait", "soon");
            context.getPropertiesComponent().addInitialProperty("size", "0");
            context.getPropertiesComponent().addInitialProperty("bytes", "1MB");
            context.getPropertiesComponent().addInitialProperty("on", "yes");
            SettingsReader settings = new SettingsReader(context);
            assertThatThrownBy(() -> settings.duration("wait")).hasMessageStartingWith("wait: not a duration: 'soon'");
            assertThatThrownBy(() -> settings.count("size", 1)).hasMessage("size: not a whole number of at least 1: '0'");
            assertThatThrownBy(() -> settings.number("bytes")).hasMessage("bytes: not a number: '1MB'");
            assertThatThrownBy(() -> settings.flag("on")).hasMessage("on: not true or false: 'yes'");
        }
    }
}
