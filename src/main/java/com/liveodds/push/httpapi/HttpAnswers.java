package com.liveodds.push.httpapi;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
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

    /**
     * {@code Content-Length}, or 0 for a request that has no body (HTTP/1.1 without {@code Transfer-Encoding}, an HTTP/2
     * stream already ended); -1 when the size is not known in advance; a malformed length counts as too large.
     */
    public static long declaredLength(HttpServerRequest request) {
        String header = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        if (header == null) {
            boolean http1 = request.version() != HttpVersion.HTTP_2;
            return http1 && request.getHeader(HttpHeaders.TRANSFER_ENCODING) == null || request.isEnded() ? 0 : -1;
        }
        try {
            return Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * An answer before (or instead of) the body. While the body has not ended, the connection is closed once the answer
     * is written (HTTP/1.x keeps it open otherwise, the unread body waiting), so an unread body is never taken.
     */
    public static void refuse(RoutingContext context, int status, String error, String message) {
        HttpServerRequest request = context.request();
        if (context.response().ended() || context.response().headWritten()) {
            return;
        }
        boolean unread = !request.isEnded() && request.version() != HttpVersion.HTTP_2;
        if (unread) {
            context.response().putHeader(HttpHeaders.CONNECTION, "close");
        }
        context.response().setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .end(HttpAnswers.errorBody(error, message))
                .onComplete(written -> {
                    if (unread) {
                        request.connection().close();
                    }
                });
    }
}
