package com.liveodds.push.queue;

/**
 * The exception a queued exchange ends with when the queue gives it back untried, or untried again: the service is
 * stopping, the exchange's source withdrew it, or an earlier exchange of its key was given back (so it cannot
 * overtake that one when the source delivers both again). Its source keeps the message.
 */
public class HandedBack extends RuntimeException {

    public HandedBack(String why) {
        super(why, null, false, false);
    }
}
