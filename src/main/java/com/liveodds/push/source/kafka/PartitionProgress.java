package com.liveodds.push.source.kafka;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The records of one partition handed on by this instance and not yet covered by a commit. Records finish in any
 * order (each match has its own queue), but an offset may only be committed once every record before it is finished
 * (delivered, dead-lettered, or superseded by a later snapshot of its match): the committable offset is the end of the contiguous finished prefix. A record handed
 * back (shutdown, revocation) is settled without finishing and holds the prefix back for good, so the next
 * owner reads it again.
 */
final class PartitionProgress {

    private enum State { PENDING, FINISHED, ABANDONED }

    private final TreeMap<Long, State> handedOn = new TreeMap<>();
    /** The offset the group should resume from, once known; -1 before the first record finishes. */
    private long committable = -1;
    private long committed = -1;
    private int pending;

    /** A record leaves the poll thread; offsets arrive in increasing order. */
    synchronized void handedOn(long offset) {
        handedOn.put(offset, State.PENDING);
        pending++;
    }

    synchronized void finished(long offset) {
        settle(offset, State.FINISHED);
        while (!handedOn.isEmpty() && handedOn.firstEntry().getValue() == State.FINISHED) {
            committable = handedOn.pollFirstEntry().getKey() + 1;
        }
    }

    synchronized void abandoned(long offset) {
        settle(offset, State.ABANDONED);
    }

    private void settle(long offset, State state) {
        if (handedOn.replace(offset, state) == State.PENDING) {
            pending--;
            notifyAll();
        }
    }

    /** The offset to commit if it moved since the last {@link #committed(long)}. */
    synchronized OptionalLong toCommit() {
        return committable > committed ? OptionalLong.of(committable) : OptionalLong.empty();
    }

    synchronized void committed(long offset) {
        committed = Math.max(committed, offset);
    }

    /** Waits until no record is pending any more, at most {@code millis}; true if none is. */
    synchronized boolean awaitSettled(long millis) throws InterruptedException {
        long until = System.currentTimeMillis() + millis;
        long left;
        while (pending > 0 && (left = until - System.currentTimeMillis()) > 0) {
            wait(left);
        }
        return pending == 0;
    }

    synchronized int pending() {
        return pending;
    }

    @Override
    public synchronized String toString() {
        Map.Entry<Long, State> first = handedOn.firstEntry();
        return "committable " + committable + ", " + pending + " pending" + (first == null ? "" : ", first open " + first);
    }
}
