package com.liveodds.push.queue;

import org.apache.camel.AsyncCallback;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultAsyncProducer;
import org.apache.camel.support.ExchangeHelper;

/**
 * Queues a copy of the exchange that takes over its completions (as seda's producer does), so its source acknowledges
 * when the copy ends. InOnly: the caller goes on at once. InOut: the caller gets the copy's result when it ends.
 */
final class KeyedQueueProducer extends DefaultAsyncProducer {

    private final KeyedQueueEndpoint endpoint;

    KeyedQueueProducer(KeyedQueueEndpoint endpoint) {
        super(endpoint);
        this.endpoint = endpoint;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        Exchange copy = KeyedQueue.copyOf(exchange);
        boolean inOut = ExchangeHelper.isOutCapable(exchange);
        AsyncCallback ended = !inOut ? null : doneSync -> {
            ExchangeHelper.copyResults(exchange, copy);
            callback.done(false);
        };
        try {
            endpoint.queue().offer(copy, endpoint.isBlockWhenFull(), ended);
        } catch (RuntimeException refused) {
            // not taken: the copy ended failed (its source keeps the message), and the caller hears why
            exchange.setException(refused);
            callback.done(true);
            return true;
        }
        if (inOut) {
            return false;
        }
        callback.done(true);
        return true;
    }
}
