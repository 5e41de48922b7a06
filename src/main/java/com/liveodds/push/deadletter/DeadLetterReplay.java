package com.liveodds.push.deadletter;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import com.liveodds.push.deadletter.DeadLetterStore.DeadLetter;
import com.liveodds.push.delivery.PartnerDeliveries;
import com.liveodds.push.delivery.PushOutcome;
import com.liveodds.push.ops.LogSafe;
import com.liveodds.push.ops.MessageLogContext;
import org.apache.camel.CamelContext;
import org.apache.camel.CamelContextAware;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.ProducerTemplate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends chosen dead letters through the whole pipeline again (validation, match id, the queue of their match), one
 * at a time in the order their messages first came in, and waits for each outcome. A replayed message leaves the
 * store once it is delivered; one that fails again is stored anew with its fresh reason, so the store never holds
 * two copies of a message. A letter that records its partner (contract 16) is replayed to that partner only.
 */
public class DeadLetterReplay implements CamelContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterReplay.class);

    private final DeadLetterStore store;
    private final String replayEndpoint;
    private CamelContext camelContext;
    private ProducerTemplate template;
    private Predicate<String> paused = partner -> false;

    public DeadLetterReplay(DeadLetterStore store, String replayEndpoint) {
        this.store = store;
        this.replayEndpoint = replayEndpoint;
    }

    /**
     * Whether a partner is paused (contract 24; "" the single partner): its letters stay in the store, untouched, since
     * their replay would wait for its resume.
     */
    public void setPaused(Predicate<String> paused) {
        this.paused = paused;
    }

    /**
     * @param matchId   only dead letters of this match ({@code match:123}), or null
     * @param id        only the dead letter of this message_id, or with this id (its file name: a letter without a
     *                  usable message_id can be replayed too), or null
     */
    public synchronized Report replay(String matchId, String id) throws IOException {
        List<DeadLetter> chosen = store.list().stream()
                .filter(l -> blank(matchId) || matchId.equals(l.matchId()))
                .filter(l -> blank(id) || id.equals(l.messageId()) || id.equals(l.id()))
                .toList();
        int delivered = 0;
        int failedAgain = 0;
        int notRun = 0;
        for (DeadLetter letter : chosen) {
            if (letter.upstreamBody() == null || paused.test(letter.partner() == null ? "" : letter.partner())) {
                notRun++;
                continue;
            }
            try (var log = MessageLogContext.of(letter.matchId(), letter.messageId())) {
                LOG.info("Replaying dead letter {}", letter.id());
            }
            Exchange result = template().send(replayEndpoint, ExchangePattern.InOut, e -> {
                e.getMessage().setBody(letter.upstreamBody());
                // a push one partner did not take goes to that partner again, and only to it; a rejected message (no
                // partner) to every partner that books its match
                if (letter.partner() != null) {
                    e.setVariable(PartnerDeliveries.PARTNER, letter.partner());
                }
            });
            if (result.getException() != null) {
                // the pipeline did not finish (shutdown, storage error, its partner no longer in liveodds.partners): keep
                // the letter for a later replay
                notRun++;
                try (var log = MessageLogContext.of(letter.matchId(), letter.messageId())) {
                    LOG.warn("Replay of dead letter {} did not complete: {}", LogSafe.escape(letter.id()),
                            LogSafe.escape(result.getException().getMessage()));
                }
                continue;
            }
            if (delivered(result)) {
                delivered++;
            } else {
                failedAgain++;
            }
            store.remove(letter);
        }
        Report report = new Report(chosen.size(), delivered, failedAgain, notRun);
        LOG.info("Dead-letter replay: {}", report);
        return report;
    }

    /**
     * Delivered: to its partner, or (a rejected message, with several partners) to every partner that books its match;
     * a partner that did not take it has it dead-lettered anew.
     */
    private static boolean delivered(Exchange result) {
        Map<String, PushOutcome> byPartner = PushOutcome.byPartner(result);
        if (byPartner != null) {
            return byPartner.values().stream().anyMatch(o -> o != null && o.isDelivered())
                    && byPartner.values().stream().allMatch(o -> o != null && (o.isDelivered() || "not_booked".equals(o.outcome()) || "superseded".equals(o.outcome())));
        }
        PushOutcome outcome = PushOutcome.of(result);
        return outcome != null && outcome.isDelivered();
    }

    private ProducerTemplate template() {
        if (template == null) {
            template = camelContext.createProducerTemplate();
        }
        return template;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    @Override
    public void setCamelContext(CamelContext camelContext) {
        this.camelContext = camelContext;
    }

    @Override
    public CamelContext getCamelContext() {
        return camelContext;
    }

    /** What a replay did: chosen letters, delivered now, dead-lettered again, and left in the store untouched. */
    public record Report(int chosen, int delivered, int deadLetteredAgain, int notRun) {
    }
}
