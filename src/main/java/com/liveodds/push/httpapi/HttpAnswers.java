package com.liveodds.push.httpapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The answers of our HTTP API (fixtures, the HTTP source, the operator endpoints): always JSON, and never with a header the request or
 * a later step brought in, so neither the caller's bearer token nor a partner's response headers are echoed back.
 */
public class HttpAnswers {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** RFC 6750: a missing or refused bearer token is a 401 that names the scheme. */
    public void unauthorized(Exchange exchange) {
        error(exchange, 401, "unauthorized", "a valid bearer token is required");
        exchange.getMessage().setHeader("WWW-Authenticate", "Bearer");
    }

    public void error(Exchange exchange, int status, String error, String message) {
        json(exchange, status, errorBody(error, message));
    }

    /** {@code {"error": ..., "message": ...}}: the body of every error answer, also for answers given outside a route. */
    public static String errorBody(String error, String message) {
        ObjectNode body = MAPPER.createObjectNode();
        body.put("error", error);
        body.put("message", message);
        return body.toString();
    }

    /** The answer of a step that refused the request ({@link HttpProblem}): its status and reason, and Retry-After if any. */
    public void problem(Exchange exchange, HttpProblem problem) {
        error(exchange, problem.getStatus(), problem.getError(), problem.getMessage());
        if (problem.getRetryAfterSeconds() > 0) {
            exchange.getMessage().setHeader("Retry-After", Long.toString(problem.getRetryAfterSeconds()));
        }
    }

    public void json(Exchange exchange, int status, String json) {
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        message.setHeader(Exchange.CONTENT_TYPE, "application/json");
        message.setBody(json);
    }
}
