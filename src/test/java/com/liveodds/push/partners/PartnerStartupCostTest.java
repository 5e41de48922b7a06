package com.liveodds.push.partners;

import static org.assertj.core.api.Assertions.assertThat;

import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;

/**
 * What a partner costs every message of every partner: nothing Camel does per exchange grows with the number of
 * partners. Camel walks its list of event notifiers at every asynchronous step of every exchange, and camel-main's HTTP
 * servers add one to it each time a route starts after the context (4.18), so routes started one by one once the
 * context runs (a partner's six) made that walk longer with every partner: about 200 notifiers with 16 partners.
 */
class PartnerStartupCostTest {

    @Test
    void camelsEventNotifiersDoNotGrowWithThePartners() throws Exception {
        int one;
        try (RunningService service = RunningService.builder().partner("http://127.0.0.1:9", "http://127.0.0.1:9").start()) {
            one = service.context().getManagementStrategy().getEventNotifiers().size();
        }
        RunningService.Builder three = RunningService.builder();
        for (String name : new String[] {"a", "b", "c"}) {
            three.partner(name, Integer.toString(name.charAt(0)), "http://127.0.0.1:9", "http://127.0.0.1:9");
        }
        try (RunningService service = three.start()) {
            assertThat(service.context().getManagementStrategy().getEventNotifiers()).as("notifiers with three partners")
                    .hasSize(one);
        }
    }
}
