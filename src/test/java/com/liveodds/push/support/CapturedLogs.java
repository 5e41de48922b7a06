package com.liveodds.push.support;

import java.util.List;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/** Every log line written while it is open, so a test can prove that no secret reaches the log. */
public final class CapturedLogs implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private CapturedLogs(String loggerName) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    public static CapturedLogs all() {
        return new CapturedLogs(Logger.ROOT_LOGGER_NAME);
    }

    public static CapturedLogs of(Class<?> type) {
        return new CapturedLogs(type.getName());
    }

    public List<String> messages() {
        List<ILoggingEvent> events;
        // logback appends under the appender's monitor: a copy taken under it is whole (a service's threads log on)
        synchronized (appender) {
            events = List.copyOf(appender.list);
        }
        return events.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}
