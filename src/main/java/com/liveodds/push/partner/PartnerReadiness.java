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
 * down ones, and the detail {@code partners.down} names them while it is UP.
 * <p>
 * The partners' {@link PartnerHealth} beans are no health checks themselves: Camel takes every HealthCheck of the
 * registry, and tells checks apart by id alone, so one per partner would each be a check named {@code partner}.
 */
public class PartnerReadiness extends AbstractHealthCheck {

    private final Map<String, PartnerHealth> partners;

    /** @param partners each partner's health by name, in the order of {@code liveodds.partners} ("" for the single) */
    public PartnerReadiness(Map<String, PartnerHealth> partners) {
        super("liveodds", "partner");
        this.partners = new LinkedHashMap<>(partners);
    }

    @Override
    public boolean isLiveness() {
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        if (partners.size() == 1 && partners.containsKey("")) {
            single(builder, partners.get(""));
            return;
        }
        List<String> down = new ArrayList<>();
        for (Map.Entry<String, PartnerHealth> partner : partners.entrySet()) {
            String reason = partner.getValue().downReason();
            builder.detail("partner." + partner.getKey() + ".state", reason == null ? "UP" : "DOWN");
            if (reason != null) {
                down.add(partner.getKey() + " (" + reason + ")");
            }
        }
        if (!down.isEmpty()) {
            builder.detail("partners.down", String.join(", ", down));
        }
        if (!partners.isEmpty() && down.size() == partners.size()) {
            builder.message("every partner is down: " + String.join("; ", down)).down();
        } else {
            builder.up();
        }
    }

    private static void single(HealthCheckResultBuilder builder, PartnerHealth health) {
        PartnerStatus status = health.partner();
        if (status.lastSuccess() != null) {
            builder.detail("last.success", status.lastSuccess().toString());
        }
        if (status.lastFailure() != null) {
            builder.detail("last.failure", status.lastFailure().toString());
            builder.detail("last.error", status.lastError());
        }
        String reason = health.downReason();
        if (reason == null) {
            builder.up();
        } else {
            builder.message(reason).down();
        }
    }
}
