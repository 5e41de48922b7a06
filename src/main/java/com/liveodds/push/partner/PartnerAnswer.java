package com.liveodds.push.partner;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import javax.net.ssl.SSLException;

import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The outcome of one HTTP attempt to the partner: its answer, or why there was none.
 *
 * @param status      HTTP status, or 0 when there was no answer (time-out, connection or TLS error)
 * @param retryAfter  the {@code Retry-After} header, or null
 * @param location    the {@code Location} header (a 3xx is never followed), or null
 * @param body        at most the first 4 KiB of the answer body as text (at most 64 KiB are read), or null
 * @param error       why there was no answer, in words for an operator (never a secret), or null
 * @param timedOut    whether the attempt ran into {@code liveodds.delivery.timeout}
 */
public record PartnerAnswer(int status, String retryAfter, String location, String body, String error, boolean timedOut) {

    /** Most of a push answer body kept (dead letters, logs). */
    public static final int KEPT = 4 * 1024;
    private static final int MAX_ERROR_LENGTH = 200;

    public boolean isSuccess() {
        return status >= 200 && status < 300;
    }

    /** The {@code outcome} label of {@code liveodds_push_attempt_seconds}: 2xx, 401, 4xx, 5xx, 429, timeout or error. */
    public String outcome() {
        if (status == 0) {
            return timedOut ? "timeout" : "error";
        }
        if (status >= 200 && status < 300) {
            return "2xx";
        }
        if (status == 401 || status == 429) {
            return Integer.toString(status);
        }
        if (status >= 500) {
            return "5xx";
        }
        return status >= 400 ? "4xx" : "error";
    }

    /**
     * The answer of a {@code liveoddsHttp} call ({@code throwExceptionOnFailure=false}) in the exchange, or why there was
     * none: {@code failure} (the exception the call ended with, or null).
     *
     * @param keepBytes how much of the body (at most {@link PartnerHttp#READ_LIMIT}) is kept as text
     */
    public static PartnerAnswer of(Exchange exchange, Throwable failure, int keepBytes) {
        if (failure != null) {
            return failure(failure);
        }
        Message answer = exchange.getMessage();
        Integer status = answer.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status == null) {
            return new PartnerAnswer(0, null, null, null, "no HTTP answer", false);
        }
        // no body (the empty 202) is asked no conversion: Camel would look for a converter of the message itself
        byte[] bytes = answer.getBody() == null ? null : answer.getBody(byte[].class);
        String text = bytes == null || bytes.length == 0 ? null
                : new String(bytes, 0, Math.min(keepBytes, bytes.length), StandardCharsets.UTF_8);
        String location = status >= 300 && status < 400 ? answer.getHeader("Location", String.class) : null;
        return new PartnerAnswer(status, answer.getHeader("Retry-After", String.class), location, text, null, false);
    }

    private static PartnerAnswer failure(Throwable error) {
        if (rootOf(error, PartnerHttp.AttemptTimedOut.class) instanceof PartnerHttp.AttemptTimedOut timedOut) {
            return new PartnerAnswer(0, null, null, null, timedOut.getMessage(), true);
        }
        if (rootOf(error, SocketTimeoutException.class) != null) {
            // the client's own time-outs, a backstop behind the attempt's deadline
            return new PartnerAnswer(0, null, null, null, "time-out: " + describe(rootOf(error, SocketTimeoutException.class)), true);
        }
        Throwable e = error;
        while (!(e instanceof IOException) && e.getCause() != null) {
            e = e.getCause();
        }
        String why;
        if (rootOf(e, SSLException.class) != null) {
            why = "TLS handshake with the partner failed: " + describe(rootOf(e, SSLException.class));
        } else if (e instanceof ConnectException) {
            why = "cannot connect: " + describe(e);
        } else if (e instanceof IOException) {
            why = "connection failed: " + describe(e);
        } else {
            why = "request failed: " + describe(e);
        }
        return new PartnerAnswer(0, null, null, null, why, false);
    }

    private static Throwable rootOf(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        return null;
    }

    /** The exception's type and message, one printable line of bounded length (it may reach a log). */
    private static String describe(Throwable e) {
        String message = e.getMessage();
        String text = message == null || message.isBlank() ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + " " + message;
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_ERROR_LENGTH));
        for (int i = 0; i < text.length() && out.length() < MAX_ERROR_LENGTH; i++) {
            char c = text.charAt(i);
            out.append(c < 0x20 || c == 0x7f ? ' ' : c);
        }
        return out.toString();
    }
}
