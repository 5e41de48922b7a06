package com.liveodds.push.ops;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import ch.qos.logback.classic.pattern.Abbreviator;
import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.pattern.TargetLengthBasedClassNameAbbreviator;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %shortLogger} of logback.xml: the logger's name shortened to 20 characters, as {@code %logger{20}} does, from
 * a cache read without a lock. Logback's own cache is one lock for every thread that logs: with a line per delivered
 * push, the queue's threads waited on it (JFR, JMS at once: 43 waits over 10 ms in one run).
 */
public class ShortLoggerConverter extends ClassicConverter {

    private static final int LENGTH = 20;
    /** Logger names are class names: a few hundred at most; past that a name is shortened each time. */
    private static final int MOST = 1000;
    private final Abbreviator abbreviator = new TargetLengthBasedClassNameAbbreviator(LENGTH);
    private final Map<String, String> names = new ConcurrentHashMap<>();

    @Override
    public String convert(ILoggingEvent event) {
        String name = event.getLoggerName();
        String shortened = names.get(name);
        if (shortened == null) {
            shortened = abbreviator.abbreviate(name);
            if (names.size() < MOST) {
                names.put(name, shortened);
            }
        }
        return shortened;
    }
}
