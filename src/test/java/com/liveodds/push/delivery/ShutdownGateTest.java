package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** ShutdownGate alone: it watches for the stop only between start and stop, and leaves nothing behind. */
class ShutdownGateTest {

    @Test
    void aGateMadeAndNeverStartedWatchesNothing() {
        // camel-main makes the beans of a route file twice: the copy it drops must cost nothing
        CamelContext context = new DefaultCamelContext();
        ShutdownGate copy = new ShutdownGate();
        copy.setCamelContext(context);
        assertThat(copy.isWatchingShutdown()).isFalse();
        context.start();
        context.stop();
        assertThat(copy.isStopping()).isFalse();
    }

    @Test
    void aStartedGateClosesWhenTheContextStopsAndRunsItsActionsOnce() {
        CamelContext context = new DefaultCamelContext();
        ShutdownGate gate = new ShutdownGate();
        AtomicInteger handedBack = new AtomicInteger();
        gate.onStop(handedBack::incrementAndGet);
        gate.setCamelContext(context);
        gate.start();
        assertThat(gate.isWatchingShutdown()).isTrue();
        context.start();
        assertThat(gate.isStopping()).isFalse();
        context.stop();
        assertThat(gate.isStopping()).isTrue();
        gate.stop();
        assertThat(handedBack).hasValue(1);
        assertThat(gate.isWatchingShutdown()).isFalse();
        AtomicInteger late = new AtomicInteger();
        gate.onStop(late::incrementAndGet);
        assertThat(late).hasValue(1);
    }

    @Test
    void watchingTheStopMakesCamelRaiseNoEventPerExchange() {
        // a notifier that takes exchange events makes Camel raise several events for every exchange of every route
        CamelContext context = new DefaultCamelContext();
        ShutdownGate gate = new ShutdownGate();
        gate.setCamelContext(context);
        gate.start();
        context.start();
        try {
            assertThat(context.getCamelContextExtension().isEventNotificationApplicable()).isFalse();
        } finally {
            context.stop();
            gate.stop();
        }
    }

    @Test
    void stopRemovesTheJvmShutdownHook() throws Exception {
        ShutdownGate gate = new ShutdownGate();
        gate.start();
        java.lang.reflect.Field field = ShutdownGate.class.getDeclaredField("hook");
        field.setAccessible(true);
        Thread hook = (Thread) field.get(gate);
        gate.stop();
        // no longer registered with the JVM: removing it again finds nothing
        assertThat(Runtime.getRuntime().removeShutdownHook(hook)).isFalse();
    }
}
