package com.liveodds.push.bench;

import com.liveodds.push.support.Messages;

/**
 * The messages of one bench run in send order: message {@code i} belongs to match {@code i % matches}, so each
 * match's messages are in send order by index. Its id is {@code <tag>-<i>} (zero-padded, so file names sort in send
 * order), which lets the partner map every push back to the message without a lookup table.
 */
final class Load {

    private static final long FIRST_MATCH = 7_000_000;

    /** Matches of a warm-up load: enough for the service's and the clients' concurrency whatever the measured load's. */
    private static final int WARM_UP_MATCHES = 64;

    final String tag;
    final int size;
    final int matches;
    /** The index of this load's first match among all the bench's matches: a warm-up has matches of its own. */
    private final int firstMatch;
    /** When the producer handed message i to the source or client (System.nanoTime, same clock as the partner); 0 = not yet. */
    final long[] handedAt;

    Load(String tag, int size, int matches) {
        this(tag, size, matches, 0);
    }

    private Load(String tag, int size, int matches, int firstMatch) {
        this.tag = tag;
        this.size = size;
        this.matches = matches;
        this.firstMatch = firstMatch;
        this.handedAt = new long[size];
    }

    /**
     * The warm-up before this load: that many messages on matches of their own (after this load's), delivered before
     * this load is handed over, so the figures are taken on warm JVMs; tag {@code <tag>w}. The same in every process.
     */
    Load warmUp(int messages) {
        return new Load(tag + "w", messages, WARM_UP_MATCHES, firstMatch + matches);
    }

    int matchOf(int i) {
        return i % matches;
    }

    String id(int i) {
        return tag + "-" + String.format("%07d", i);
    }

    /** The message's index, or -1 when the id is not one of this load's. */
    int indexOf(String id) {
        if (id == null || id.length() != tag.length() + 8 || !id.startsWith(tag) || id.charAt(tag.length()) != '-') {
            return -1;
        }
        try {
            int i = Integer.parseInt(id, tag.length() + 1, id.length(), 10);
            return i < size ? i : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The partner's match id of match m, as in the push path and {@code fight_id_sr}. */
    String matchId(int m) {
        return "match:" + (FIRST_MATCH + firstMatch + m);
    }

    /** The match index of a partner match id (of a load without a warm-up before it), or -1. */
    static int matchIndex(String matchId) {
        try {
            return (int) (Long.parseLong(matchId.substring("match:".length())) - FIRST_MATCH);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The upstream fight id of match m: the JMS group. */
    String fightId(int m) {
        return Integer.toString(firstMatch + m);
    }

    String body(int i) {
        int m = matchOf(i);
        return Messages.odds(id(i), Messages.external(fightId(m), FIRST_MATCH + firstMatch + m));
    }

    void handed(int i) {
        handedAt[i] = System.nanoTime();
    }
}
