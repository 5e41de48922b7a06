package com.liveodds.push.ops;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.pattern.LoggerConverter;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

class ShortLoggerConverterTest {

    @Test
    void namesAreShortenedAsLogbacksLoggerOfTwentyIs() {
        LoggerContext context = new LoggerContext();
        LoggerConverter logbacks = new LoggerConverter();
        logbacks.setOptionList(List.of("20"));
        logbacks.start();
        ShortLoggerConverter ours = new ShortLoggerConverter();
        ours.start();
        for (String name : List.of("com.liveodds.push.delivery.PartnerPushes", "liveodds.sandbox", "org.apache.camel.impl.engine.AbstractCamelContext", "Main")) {
            LoggingEvent event = new LoggingEvent("x", context.getLogger(name), Level.INFO, "m", null, null);
            // twice: the second from the cache
            assertThat(ours.convert(event)).isEqualTo(logbacks.convert(event));
            assertThat(ours.convert(event)).isEqualTo(logbacks.convert(event));
        }
    }
}
