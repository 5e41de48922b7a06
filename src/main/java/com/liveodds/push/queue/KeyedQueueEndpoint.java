package com.liveodds.push.queue;

import java.time.Instant;

import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Predicate;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;

/**
 * {@code liveoddsQueue:name[?options]}: the exchanges sent to it run the route that consumes it one per key at a time,
 * in the order they were sent, up to {@code maxInFlight} keys at once. The key is the header
 * {@value KeyedQueueConstants#KEY}; a run that sets the header {@value KeyedQueueConstants#RETRY_AFTER} runs again
 * after that delay, at the head of its key. The queue's options are those of the consuming endpoint; a producing endpoint only
 * chooses {@code blockWhenFull}. The options are listed in docs/architecture.md.
 */
@UriEndpoint(firstVersion = "1.0.0", scheme = "liveoddsQueue", title = "Keyed queue", syntax = "liveoddsQueue:name",
             remote = false, category = { Category.CORE, Category.MESSAGING })
public class KeyedQueueEndpoint extends DefaultEndpoint {

    @UriPath(description = "The queue's name; every endpoint of the name shares its queue")
    @Metadata(required = true)
    private final String name;
    @UriParam(label = "consumer", defaultValue = "256",
              description = "Keys whose exchange runs the route at once; the others wait holding no thread")
    private int maxInFlight = 256;
    @UriParam(label = "consumer", defaultValue = "10000",
              description = "Exchanges held at once (waiting, running, or waiting out a retry delay)")
    private int size = 10_000;
    @UriParam(label = "consumer", defaultValue = "0",
              description = "Exchanges a waiting producer (blockWhenFull) may have held that are not waiting out a retry"
                            + " delay, nor queued on a key that is: past it such a producer waits, so that a source with"
                            + " a backlog of its own (a broker) keeps it there rather than in the heap; 0: size alone")
    private int readAhead;
    @UriParam(label = "consumer", defaultValue = "9223372036854775807",
              description = "Bytes held at once, each exchange weighing its header CamelLiveoddsWeight: past it a producer"
                            + " waits as for a place (one exchange is always let in, however heavy)")
    private long maxBytes = Long.MAX_VALUE;
    @UriParam(label = "consumer", defaultValue = "false",
              description = "Whether an exchange with the header CamelLiveoddsSupersedes ends the supersedable exchanges"
                            + " of its key queued before it, unrun (completed, property CamelLiveoddsSuperseded)")
    private boolean supersede;
    @UriParam(label = "consumer",
              description = "A predicate asked before each run and during retry delays: when it matches, the exchange"
                            + " and those queued behind it on its key go back to their source (HandedBack)")
    private Predicate handBackWhen;
    @UriParam(label = "producer", defaultValue = "true",
              description = "Whether a producer waits for a place when every place is taken, or fails with QueueFull")
    private boolean blockWhenFull = true;

    public KeyedQueueEndpoint(String uri, KeyedQueueComponent component, String name) {
        super(uri, component);
        this.name = name;
    }

    @Override
    public KeyedQueueComponent getComponent() {
        return (KeyedQueueComponent) super.getComponent();
    }

    KeyedQueue queue() {
        return getComponent().queue(name);
    }

    @Override
    public Producer createProducer() {
        return new KeyedQueueProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        Consumer consumer = new KeyedQueueConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    /**
     * Holds the key: exchanges of the key sent from now on wait behind those sent with the hold in the header
     * {@value KeyedQueueConstants#BEFORE}, until the hold is closed. One hold per key at a time.
     */
    public KeyHold hold(Object key) {
        return queue().hold(key);
    }

    /** Exchanges held now: waiting, running, or waiting out a retry delay. */
    /**
     * No exchange starts its run until {@link #resumeRuns()}: they wait in their keys' order (new ones are taken as
     * long as there is room, a retry delay that ends waits too), those running finish their run.
     */
    public void pauseRuns() {
        queue().pauseRuns(true);
    }

    /** Runs start again, in each key's order. */
    public void resumeRuns() {
        queue().pauseRuns(false);
    }

    public int getHeld() {
        return queue().held();
    }

    /** When the oldest exchange held came in, or null when none is held. */
    public Instant getOldest() {
        return queue().oldest();
    }

    /** The first {@link Error} a route met on the queue's threads, or null: the service should be restarted. */
    public Error getFatalError() {
        return queue().fatalError();
    }

    public String getName() {
        return name;
    }

    public int getMaxInFlight() {
        return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
        }
        this.maxInFlight = maxInFlight;
    }

    public int getSize() {
        return size;
    }

    public void setSize(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1, not " + size);
        }
        this.size = size;
    }

    public int getReadAhead() {
        return readAhead;
    }

    public void setReadAhead(int readAhead) {
        if (readAhead < 0) {
            throw new IllegalArgumentException("readAhead must be 0 or more, not " + readAhead);
        }
        this.readAhead = readAhead;
    }

    public long getMaxBytes() {
        return maxBytes;
    }

    public void setMaxBytes(long maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be at least 1, not " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    public boolean isSupersede() {
        return supersede;
    }

    public void setSupersede(boolean supersede) {
        this.supersede = supersede;
    }

    public Predicate getHandBackWhen() {
        return handBackWhen;
    }

    public void setHandBackWhen(Predicate handBackWhen) {
        this.handBackWhen = handBackWhen;
    }

    public boolean isBlockWhenFull() {
        return blockWhenFull;
    }

    public void setBlockWhenFull(boolean blockWhenFull) {
        this.blockWhenFull = blockWhenFull;
    }
}
