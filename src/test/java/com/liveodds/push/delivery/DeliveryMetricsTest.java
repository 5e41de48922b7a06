package com.liveodds.push.delivery;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.MetricsScrape;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/** Contract 13: "how late are we", as /observe/metrics tells it over a run where the partner is down for a while. */
class DeliveryMetricsTest {

    @Test
    void backlogAndOldestUndeliveredRiseWhileThePartnerIsDownAndFallAfterAndLatencyCountsEveryDelivery() throws Exception {
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.heartbeat.interval", "1s")
                     .set("liveodds.upstream.max-silence", "0")
                     .start()) {
            StubMapping down = partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*/odds")).atPriority(1)
                    .willReturn(aResponse().withStatus(503)));
            for (int i = 1; i <= 3; i++) {
                service.drop("a-" + i + ".json", Messages.odds("a-" + i, Messages.external("1", 9301)));
                service.drop("b-" + i + ".json", Messages.odds("b-" + i, Messages.external("2", 9302)));
            }
            await().atMost(Duration.ofSeconds(15)).until(() -> {
                MetricsScrape m = MetricsScrape.of(service);
                return m.value("liveodds_backlog_messages") == 6 && m.value("liveodds_matches_retrying") == 2
                        && m.value("liveodds_oldest_undelivered_seconds") >= 2;
            });
            assertThat(MetricsScrape.of(service).value("liveodds_push_latency_seconds_count")).as("nothing delivered yet").isNull();

            partner.server().removeStub(down);
            await().atMost(Duration.ofSeconds(40)).until(() -> {
                MetricsScrape m = MetricsScrape.of(service);
                return m.value("liveodds_backlog_messages") == 0 && m.value("liveodds_oldest_undelivered_seconds") == 0
                        && m.value("liveodds_matches_retrying") == 0;
            });
            MetricsScrape after = MetricsScrape.of(service);
            assertThat(after.value("liveodds_push_latency_seconds_count")).isEqualTo(6.0)
                    .isEqualTo(after.value("liveodds_pushes_delivered_total"));
            assertThat(after.value("liveodds_push_latency_seconds_max")).as("the longest waited out the outage").isGreaterThanOrEqualTo(2.0);
            assertThat(after.value("liveodds_live_matches")).isEqualTo(2.0);
            assertThat(after.value("liveodds_pushes_retried_total")).isPositive();

            await().atMost(Duration.ofSeconds(30)).until(() -> MetricsScrape.of(service).value("liveodds_heartbeat_lateness_seconds_count") != null
                    && MetricsScrape.of(service).value("liveodds_heartbeat_lateness_seconds_count") >= 2);
            assertThat(MetricsScrape.of(service).value("liveodds_heartbeat_lateness_seconds_max")).isLessThan(0.5);
        }
    }
}
