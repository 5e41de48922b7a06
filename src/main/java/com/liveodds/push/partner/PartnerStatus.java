package com.liveodds.push.partner;

import java.time.Instant;

/**
 * The partner connection as the status page shows it (contract section 13).
 *
 * @param up              the {@code partner} readiness check's verdict
 * @param lastSuccess     the last request to the partner (token, push or heartbeat) that succeeded, or null
 * @param lastFailure     the last one that failed, or null
 * @param lastError       why it failed (never a secret), or null
 */
public record PartnerStatus(boolean up, Instant lastSuccess, Instant lastFailure, String lastError) {
}
