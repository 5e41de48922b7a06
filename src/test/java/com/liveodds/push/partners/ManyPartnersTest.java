package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two partners from one deployment (contract 16): each gets its booked matches on its own path, and only those. */
class ManyPartnersTest {

    @TempDir
    static Path work;

    private static LoopbackPartner a;
    private static LoopbackPartner b;
    private static RunningService service;
    private static Path booking;

    @BeforeAll
    static void start() throws Exception {
        a = new LoopbackPartner();
        b = new LoopbackPartner();
        booking = work.resolve("booking-b.txt");
        Files.writeString(booking, "# partner b books one match\nmatch:900\n");
        service = RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .set("liveodds.partners.b.booking", booking.toString())
                .work(work)
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        a.close();
        b.close();
    }

    @Test
    void eachPartnerGetsItsBookedMatchesOnItsOwnPath() throws Exception {
        service.drop("m-001.json", Messages.odds("both-1", Messages.external("1", 900)));
        service.drop("m-002.json", Messages.odds("only-a-1", Messages.external("2", 901)));
        service.drop("m-003.json", Messages.odds("both-2", Messages.external("1", 900)));

        await().atMost(Duration.ofSeconds(30)).until(() -> ids(a).containsAll(List.of("both-1", "only-a-1", "both-2"))
                && ids(b).containsAll(List.of("both-1", "both-2")));
        assertThat(a.arrivals()).filteredOn(r -> !r.isHeartbeat())
                .allSatisfy(r -> assertThat(r.path()).startsWith("/partner/v1/liveodds/101/"));
        assertThat(b.arrivals()).filteredOn(r -> !r.isHeartbeat())
                .allSatisfy(r -> assertThat(r.path()).startsWith("/partner/v1/liveodds/202/match:900/"));
        assertThat(ids(b)).doesNotContain("only-a-1");
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(service.done().resolve("m-003.json")));
    }

    private static List<String> ids(LoopbackPartner partner) {
        return partner.arrivals().stream().filter(r -> !r.isHeartbeat()).map(LoopbackPartner.Arrival::messageId).toList();
    }
}
