package com.liveodds.push.ingest;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The JSON reader and writer for upstream messages. Decimals stay exact ({@code 1.50} leaves as {@code 1.50}): the
 * market content is the producer's and is passed through untouched, into pushes and dead letters alike.
 */
public final class UpstreamJson {

    private UpstreamJson() {
    }

    public static ObjectMapper mapper() {
        return new ObjectMapper()
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    }
}
