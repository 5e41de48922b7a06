package com.liveodds.push.ops;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %oneLineMessage} of logback.xml: the message with each line break (CR, LF, NEL, LS, PS) shown as {@code \n},
 * so no value inside it starts a log line of its own. What {@code %replace(%msg){...}} did, without a regular
 * expression matched against every line the service writes (a line per delivered push).
 */
public class OneLineMessageConverter extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        String message = event.getFormattedMessage();
        if (message == null) {
            return null;
        }
        int i = 0;
        while (i < message.length() && !isLineBreak(message.charAt(i))) {
            i++;
        }
        if (i == message.length()) {
            return message;
        }
        StringBuilder escaped = new StringBuilder(message.length() + 8).append(message, 0, i);
        for (; i < message.length(); i++) {
            char c = message.charAt(i);
            if (isLineBreak(c)) {
                escaped.append("\\n");
            } else {
                escaped.append(c);
            }
        }
        return escaped.toString();
    }

    private static boolean isLineBreak(char c) {
        return c == '\r' || c == '\n' || c == '\u0085' || c == '\u2028' || c == '\u2029';
    }
}
