package com.liveodds.push.queue;

/**
 * A hold on one key of a {@code liveoddsQueue} ({@link KeyedQueueEndpoint#hold}): exchanges of the key sent with this
 * hold in the header {@value KeyedQueueConstants#BEFORE} run before every exchange of the key sent without it since the
 * hold was taken, which wait behind it until it is closed. A late batch (a recovery read from a store) so keeps its
 * place in the key's order ahead of what came after its read, while the sender of the later ones is never held up.
 */
public final class KeyHold implements AutoCloseable {

    private final KeyedQueue queue;
    private final Object key;
    private boolean closed;

    KeyHold(KeyedQueue queue, Object key) {
        this.queue = queue;
        this.key = key;
    }

    public Object key() {
        return key;
    }

    /** Lets the exchanges held behind it go on; closing twice does nothing. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        queue.release(this);
    }
}
