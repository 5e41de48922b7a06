package com.liveodds.push.queue;

/** A producer with {@code blockWhenFull=false} met a queue whose every place ({@code size}) is taken. */
public class QueueFull extends RuntimeException {

    public QueueFull(String queue, int size) {
        super("liveoddsQueue " + queue + " is full (" + size + " exchanges held)", null, false, false);
    }
}
