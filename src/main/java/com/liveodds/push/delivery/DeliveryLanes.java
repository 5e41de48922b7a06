package com.liveodds.push.delivery;

import org.apache.camel.builder.RouteBuilder;

/**
 * The delivery lanes: {@code liveodds.delivery.lanes} routes {@code seda:lane-N}, one consumer each, all running
 * {@code direct:deliver} (routes/delivery.yaml). A match always hashes to the same lane, so its pushes go out
 * one at a time in arrival order while other lanes carry on. Java only because YAML cannot repeat a route N times.
 */
public class DeliveryLanes extends RouteBuilder {

    @Override
    public void configure() {
        int lanes = Integer.parseInt(getContext().resolvePropertyPlaceholders("{{liveodds.delivery.lanes}}"));
        for (int lane = 0; lane < lanes; lane++) {
            from("seda:lane-" + lane + "?exceptionHandler=#bean:laneFailures").routeId("delivery-lane-" + lane).to("direct:deliver");
        }
    }
}
