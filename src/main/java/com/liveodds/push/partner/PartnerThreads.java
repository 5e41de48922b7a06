package com.liveodds.push.partner;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import org.apache.camel.AsyncCallback;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.spi.ReactiveExecutor;
import org.apache.camel.support.AsyncProcessorSupport;

/**
 * The step that moves an attempt onto the partner's threads ({@link PartnerHttp#threads()}), as Camel's
 * {@code threads} step does, and that leaves no attempt stuck when one of them fails with an {@link Error} (contract
 * 10, nothing gets stuck). Camel catches only {@link Exception} around a step: an OutOfMemoryError in a step (a host's
 * {@code interceptSendToEndpoint("liveoddsHttp:*")} processor, the HTTP client, an expression) escapes to the thread,
 * and the exchange either never ends or waits for whatever next runs on that thread. Here the Error becomes the
 * exchange's exception, the rest of the exchange's work that Camel left on the thread runs at once (it sees the attempt
 * failed: no request goes out), and when Camel left none, the exchange's owner ends it ({@link #STRANDED}).
 */
public class PartnerThreads extends AsyncProcessorSupport implements CamelContextAware {

    /**
     * Exchange property: a {@code Consumer<Throwable>} that ends the exchange's delivery with an Error met on a partner
     * thread that left no step to end it; set by the exchange's owner.
     */
    public static final String STRANDED = "liveoddsStranded";

    private final ExecutorService threads;
    private CamelContext camelContext;

    public PartnerThreads(ExecutorService threads) {
        this.threads = threads;
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        try {
            threads.execute(() -> run(exchange, callback));
            return false;
        } catch (RejectedExecutionException e) {
            exchange.setException(e);
            callback.done(true);
            return true;
        }
    }

    /** The rest of the attempt, on this thread. */
    private void run(Exchange exchange, AsyncCallback callback) {
        try {
            callback.done(false);
        } catch (Throwable e) {
            stranded(exchange, e);
        }
    }

    @SuppressWarnings("unchecked")
    private void stranded(Exchange exchange, Throwable error) {
        ReactiveExecutor reactive = camelContext.getCamelContextExtension().getReactiveExecutor();
        exchange.setException(error);
        // what Camel queued on this thread before the Error escaped (a step calls back before it rethrows) runs now
        boolean wentOn = false;
        while (true) {
            try {
                if (!reactive.executeFromQueue()) {
                    break;
                }
            } catch (Throwable again) {
                exchange.setException(again);
            }
            wentOn = true;
        }
        Consumer<Throwable> owner = exchange.getProperty(STRANDED, Consumer.class);
        if (!wentOn && owner != null) {
            // nothing was left to carry the exchange on: its owner ends it
            owner.accept(error);
        }
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }
}
