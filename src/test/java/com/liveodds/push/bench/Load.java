package com.liveodds.push.bench;

import com.liveodds.push.support.Messages;

/**
 * The messages of one bench run in send order: message {@code i} belongs to match {@code i % matches}, so each
 * match's messages are in send order by index. Its id is {@code <tag>-<i>} (zero-padded, so file names sort in send
 * order), which lets the partner map every push back to the message without a lookup table.
 */
final class Load {

    private static final long FIRST_MATCH = 7_000_000;

    final String tag;
    final int size;
    final int matches;
    /** When the producer handed message i to the source or client (System.nanoTime, same clock as the partner); 0 = not yet. */
    final long[] handedAt;

    Load(String tag, int size, int matches) {
        this.tag = tag;
        this.size = size;
        this.matches = matches;
        this.handedAt = new long[size];
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
    static String matchId(int m) {
        return "match:" + (FIRST_MATCH + m);
    }

    /** The match index of a partner match id, or -1. */
    static int matchIndex(String matchId) {
        try {
            return (int) (Long.parseLong(matchId.substring("match:".length())) - FIRST_MATCH);
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** The upstream fight id of match m: the JMS group. */
    String fightId(int m) {
        return Integer.toString(m);
    }

    String body(int i) {
        int m = matchOf(i);
        return Messages.odds(id(i), Messages.external(fightId(m), FIRST_MATCH + m));
    }

    void handed(int i) {
        handedAt[i] = System.nanoTime();
    }
}
