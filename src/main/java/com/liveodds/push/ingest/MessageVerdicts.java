package com.liveodds.push.ingest;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import com.liveodds.push.delivery.PartnerDeliveries;
import com.liveodds.push.delivery.Push;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * One upstream message that each partner's own source reads (its copy on the partner's JMS queue or in its Kafka
 * group, contract 16) is validated and resolved once when the partners read it one after the other: the first reader
 * reaches the verdict through the ingest routes, the later ones take it (routes/ingest.yaml). No reader waits for
 * another: one that comes while the verdict is still being reached judges the message itself (a rejection is still
 * dead-lettered and counted once: DeadLetterStore.rejectedOnce). A source names its message in the exchange variable
 * {@value #KEY} (a Kafka record: topic, partition and offset; a JMS message its id) and its partner in
 * {@code liveoddsPartner}; a message without both (the HTTP source, the inbox that several partners share, which reads
 * each message once for all of them) is judged on its own. A verdict is forgotten once every partner took it. The
 * memory is bounded: at most {@value #MAX_ACCEPTED} accepted pushes holding {@value #MAX_ACCEPTED_CHARS} characters,
 * and {@value #MAX_SETTLED} keys of messages that end at ingest (rejected, alive), are kept, the oldest forgotten
 * first; a partner that far behind the others judges again what it reads.
 */
public class MessageVerdicts {

    /** Exchange variable a source sets: its identity of the message, the same for every partner that reads it (also DeadLetterStore.rejectedOnce's). */
    public static final String KEY = "liveoddsMessageKey";
    /** Exchange variable {@link #recall} sets when another partner's reading reached the verdict: {@code accepted} or {@code settled}. */
    public static final String VERDICT = "liveoddsVerdict";
    static final int MAX_ACCEPTED = 1000;
    static final long MAX_ACCEPTED_CHARS = 16L * 1024 * 1024;
    static final int MAX_SETTLED = 100_000;
    private static final String CLAIM = "liveoddsVerdictClaim";

    /** Being reached or accepted, oldest first: bounded by {@link #evict()}. */
    private final Map<String, Verdict> accepted = new LinkedHashMap<>();
    private final Map<String, Verdict> settled = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Verdict> eldest) {
            return size() > MAX_SETTLED;
        }
    };
    /** The characters of the accepted pushes kept. */
    private long acceptedChars;
    private int readers = 1;

    /** {@code liveodds.partners}: every partner reads each message once (empty: the single partner). */
    public void setPartners(String names) {
        readers = (int) Math.max(1, Arrays.stream(names.split(",")).filter(n -> !n.isBlank()).count());
    }

    /**
     * Before the message is judged: takes the verdict another partner's reading reached (the push into the body, and
     * {@value #VERDICT} set); or leaves the exchange to reach it, for all when no other reader is reaching it.
     */
    public void recall(Exchange exchange) {
        String key = exchange.getVariable(KEY, String.class);
        String reader = exchange.getVariable(PartnerDeliveries.PARTNER, String.class);
        if (key == null || reader == null || readers == 1) {
            return;
        }
        Verdict verdict;
        synchronized (this) {
            verdict = accepted.get(key);
            if (verdict == null) {
                verdict = settled.get(key);
            }
            if (verdict == null) {
                verdict = new Verdict(key);
                accepted.put(key, verdict);
                evict();
                exchange.setVariable(CLAIM, verdict);
                exchange.getExchangeExtension().addOnCompletion(new Release(verdict, reader));
                return;
            }
        }
        taken(verdict, reader);
        if (!verdict.outcome.isDone() || verdict.outcome.isCompletedExceptionally()) {
            return; // being reached by another reader: this one judges it too rather than wait
        }
        Push push = verdict.outcome.join();
        if (push != null) {
            exchange.getMessage().setBody(push);
            exchange.setVariable(VERDICT, "accepted");
        } else {
            exchange.setVariable(VERDICT, "settled");
        }
    }

    /** The push this exchange reached (in its body) is the verdict for every partner. */
    public void accepted(Exchange exchange) {
        Verdict verdict = exchange.getVariable(CLAIM, Verdict.class);
        if (verdict != null) {
            Push push = exchange.getMessage().getBody(Push.class);
            synchronized (this) {
                if (accepted.get(verdict.key) == verdict) {
                    verdict.chars = push.json().length() + (push.upstreamBody() == null ? 0 : push.upstreamBody().length());
                    acceptedChars += verdict.chars;
                    evict();
                }
            }
            verdict.outcome.complete(push);
            taken(verdict, exchange.getVariable(PartnerDeliveries.PARTNER, String.class));
        }
    }

    private synchronized void taken(Verdict verdict, String reader) {
        verdict.takers.add(reader);
        if (verdict.takers.size() >= readers) {
            forget(verdict);
        }
    }

    private synchronized void forget(Verdict verdict) {
        if (accepted.remove(verdict.key, verdict)) {
            acceptedChars -= verdict.chars;
        }
        settled.remove(verdict.key, verdict);
    }

    private synchronized void settle(Verdict verdict) {
        if (accepted.remove(verdict.key, verdict)) {
            settled.put(verdict.key, verdict);
        }
    }

    /** Under the lock: the oldest accepted pushes go while there are too many of them, or too large. */
    private void evict() {
        var oldest = accepted.values().iterator();
        while (accepted.size() > MAX_ACCEPTED || acceptedChars > MAX_ACCEPTED_CHARS) {
            acceptedChars -= oldest.next().chars;
            oldest.remove();
        }
    }

    /** A message's verdict: the push (accepted), null (ended at ingest: rejected or alive), or released (failed). */
    private static final class Verdict {
        final String key;
        final CompletableFuture<Push> outcome = new CompletableFuture<>();
        final Set<String> takers = new HashSet<>();
        long chars;

        Verdict(String key) {
            this.key = key;
        }
    }

    /**
     * The end of the exchange that reached the verdict: without a push it ended at ingest (rejected and
     * dead-lettered, or alive), settled for all; if it failed, the next reader reaches the verdict itself.
     */
    private final class Release extends SynchronizationAdapter {
        private final Verdict verdict;
        private final String reader;

        Release(Verdict verdict, String reader) {
            this.verdict = verdict;
            this.reader = reader;
        }

        @Override
        public void onComplete(Exchange exchange) {
            if (verdict.outcome.complete(null)) {
                settle(verdict);
                taken(verdict, reader);
            }
        }

        @Override
        public void onFailure(Exchange exchange) {
            if (verdict.outcome.completeExceptionally(new IllegalStateException("released"))) {
                forget(verdict);
            }
        }
    }
}
