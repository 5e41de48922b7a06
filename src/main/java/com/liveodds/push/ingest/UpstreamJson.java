package com.liveodds.push.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The JSON reader and writer for upstream messages. Decimals stay exact ({@code 1.50} leaves as {@code 1.50}): the
 * market content is the producer's and is passed through untouched, into pushes and dead letters alike. Reading is
 * strict: a key repeated in one object is an error (the last one would otherwise win silently), and so is anything
 * but whitespace after the value.
 */
public final class UpstreamJson {

    private UpstreamJson() {
    }

    public static ObjectMapper mapper() {
        return new ObjectMapper()
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));
    }
}
