package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.RunningService;
import org.apache.camel.ServiceStatus;
import org.junit.jupiter.api.Test;

/**
 * Which source routes run with several partners: the file source's one reading of the inbox shared by all of them,
 * the HTTP source's one route.
 */
class SourceRoutesTest {

    @Test
    void withSeveralPartnersTheFileSourceIsOneReadingSharedByThemAndItsOneRouteStaysStopped() throws Exception {
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner();
             RunningService service = RunningService.builder().partner("a", "1", a.baseUrl(), a.authUrl())
                     .partner("b", "2", b.baseUrl(), b.authUrl()).start()) {
            assertThat(status(service, "liveodds-source-file-shared")).isEqualTo(ServiceStatus.Started);
            assertThat(service.context().getRoute("liveodds-source-file-a")).as("no route of its own per partner").isNull();
            assertThat(status(service, "liveodds-source-file")).isEqualTo(ServiceStatus.Stopped);
        }
    }

    @Test
    void withOnePartnerTheFileSourceKeepsItsOneRoute() throws Exception {
        try (LoopbackPartner a = new LoopbackPartner();
             RunningService service = RunningService.builder().partner(a.baseUrl(), a.authUrl()).start()) {
            assertThat(status(service, "liveodds-source-file")).isEqualTo(ServiceStatus.Started);
            assertThat(status(service, "liveodds-source-file-shared")).isEqualTo(ServiceStatus.Stopped);
        }
    }

    @Test
    void withSeveralPartnersTheHttpSourceKeepsItsOneRoute() throws Exception {
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner();
             RunningService service = RunningService.builder().partner("a", "1", a.baseUrl(), a.authUrl())
                     .partner("b", "2", b.baseUrl(), b.authUrl()).set("liveodds.source", "http").set("liveodds.source.http.tokens", "ingest-token-1").start()) {
            assertThat(status(service, "liveodds-source-http")).isEqualTo(ServiceStatus.Started);
            assertThat(status(service, "liveodds-source-file")).isEqualTo(ServiceStatus.Stopped);
            assertThat(service.context().getRoute("liveodds-source-file-a")).isNull();
        }
    }

    private static ServiceStatus status(RunningService service, String routeId) {
        return service.context().getRouteController().getRouteStatus(routeId);
    }
}
