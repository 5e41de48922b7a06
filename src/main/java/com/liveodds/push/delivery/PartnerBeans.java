package com.liveodds.push.delivery;

import java.util.Map;

import com.liveodds.push.heartbeat.LiveMatches;
import com.liveodds.push.partner.Booking;
import com.liveodds.push.partner.PartnerHealth;
import com.liveodds.push.partner.PartnerHttp;
import com.liveodds.push.queue.KeyedQueueEndpoint;
import com.liveodds.push.settings.PartnerSettings;
import com.liveodds.push.token.PartnerTokenProvider;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;

/**
 * One partner's beans, made by LiveoddsPartners: those its routes have as their own (route-template local beans:
 * {@code partnerPushes}, {@code partnerTokens}, {@code partnerHeartbeats}; {@code sourceBeans} its source route's,
 * such as the Kafka source's {@code kafkaPartitions}), and those operations read (health, token expiry, live matches, booking), found in
 * {@link PartnerDirectory} by the partner's name, never in the registry under a name with a suffix.
 */
public record PartnerBeans(PartnerSettings settings, PartnerHealth health, PartnerTokenProvider tokens, PartnerHttp http,
                           PoolingHttpClientConnectionManager connections, KeyedQueueEndpoint queue, DeliveryGauges gauges,
                           LiveMatches liveMatches, Booking booking, PartnerPushes pushes, Heartbeats heartbeats,
                           Map<String, Object> sourceBeans) {
}
