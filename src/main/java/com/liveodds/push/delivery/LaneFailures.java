package com.liveodds.push.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.spi.ExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lane logs when a push fails outright. A push handed back to its source (shutdown, or a Kafka partition that
 * moved away) is expected and can come by the hundred in one rebalance, so it is one line at DEBUG; the source keeps
 * the message unacknowledged either way. Anything else is a fault and logged with its stack trace.
 */
public class LaneFailures implements ExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(LaneFailures.class);

    @Override
    public void handleException(Throwable exception) {
        handleException(null, null, exception);
    }

    @Override
    public void handleException(String message, Throwable exception) {
        handleException(message, null, exception);
    }

    @Override
    public void handleException(String message, Exchange exchange, Throwable exception) {
        if (exception instanceof DeliveryInterruptedException) {
            LOG.debug("Lane handed a push back: {}", exception.getMessage());
        } else {
            LOG.warn("Lane failed: {}", message, exception);
        }
    }
}
