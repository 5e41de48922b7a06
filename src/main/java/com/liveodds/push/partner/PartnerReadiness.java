package com.liveodds.push.partner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Readiness check {@code partner} (contract sections 10 and 16), one for the whole service. With the single partner
 * of {@code liveodds.partner.*} it is that partner's {@link PartnerHealth}. With {@code liveodds.partners} it is DOWN
 * only when every partner is down, since the service still serves the others while some are; its message names the
 * down ones, and the detail {@code partners.down} names them while it is UP. A paused partner (contract 24) is not
 * judged: it is sent nothing, and the operator knows (detail {@code partners.paused}); with every partner paused, or the
 * single one, the check is UP, so that the service stays reachable for the resume.
 * <p>
 * The partners' {@link PartnerHealth} beans are no health checks themselves: Camel takes every HealthCheck of the
 * registry, and tells checks apart by id alone, so one per partner would each be a check named {@code partner}.
 */
public class PartnerReadiness extends AbstractHealthCheck {

    private final Map<String, PartnerHealth> partners;
    private final PartnerPauses pauses;

    /**
     * @param partners each partner's health by name, in the order of {@code liveodds.partners} ("" for the single)
     * @param pauses   which of them are paused
     */
    public PartnerReadiness(Map<String, PartnerHealth> partners, PartnerPauses pauses) {
        super("liveodds", "partner");
        this.partners = new LinkedHashMap<>(partners);
        this.pauses = pauses;
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        if (partners.size() == 1 && partners.containsKey("")) {
            single(builder, partners.get(""), pauses);
            return;
        }
        List<String> down = new ArrayList<>();
        List<String> paused = new ArrayList<>();
        for (Map.Entry<String, PartnerHealth> partner : partners.entrySet()) {
            if (pauses.isPaused(partner.getKey())) {
                builder.detail("partner." + partner.getKey() + ".state", "PAUSED");
                paused.add(partner.getKey());
                continue;
            }
            String reason = partner.getValue().downReason();
            builder.detail("partner." + partner.getKey() + ".state", reason == null ? "UP" : "DOWN");
            if (reason != null) {
                down.add(partner.getKey() + " (" + reason + ")");
            }
        }
        if (!down.isEmpty()) {
            builder.detail("partners.down", String.join(", ", down));
        }
        if (!paused.isEmpty()) {
            builder.detail("partners.paused", String.join(", ", paused));
        }
        if (!down.isEmpty() && down.size() + paused.size() == partners.size()) {
            builder.message((paused.isEmpty() ? "every partner is down: " : "every partner not paused is down: ") + String.join("; ", down)).down();
        } else {
            builder.up();
        }
    }

    private static void single(HealthCheckResultBuilder builder, PartnerHealth health, PartnerPauses pauses) {
        PartnerStatus status = health.partner();
        if (status.lastSuccess() != null) {
            builder.detail("last.success", status.lastSuccess().toString());
        }
        if (status.lastFailure() != null) {
            builder.detail("last.failure", status.lastFailure().toString());
            builder.detail("last.error", status.lastError());
        }
        String reason = health.downReason();
        if (pauses.isPaused("")) {
            builder.detail("paused", true);
            builder.up();
        } else if (reason == null) {
            builder.up();
        } else {
            builder.message(reason).down();
        }
    }
}
