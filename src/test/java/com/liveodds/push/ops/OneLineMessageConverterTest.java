package com.liveodds.push.ops;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import org.junit.jupiter.api.Test;

/** The text log's message: a line break inside it is shown as \n, so no value starts a log line of its own. */
class OneLineMessageConverterTest {

    private final Logger logger = new LoggerContext().getLogger("x");
    private final OneLineMessageConverter converter = new OneLineMessageConverter();

    @Test
    void everyKindOfLineBreakInAMessageIsShownAsBackslashN() {
        String line = converter.convert(event("Delivered {} for {}", "m-1\r\nINFO forged", "match:1\u0085\u2028\u2029x"));

        assertThat(line).isEqualTo("Delivered m-1\\n\\nINFO forged for match:1\\n\\n\\nx");
    }

    @Test
    void aMessageOnOneLineIsWrittenAsItIs() {
        String message = "Delivered odds m-1 for match:1 (HTTP 202, attempt 1)";

        assertThat(converter.convert(event(message))).isEqualTo(message);
    }

    private LoggingEvent event(String message, Object... arguments) {
        return new LoggingEvent("x", logger, Level.INFO, message, null, arguments);
    }
}
