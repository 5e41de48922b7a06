package com.liveodds.push.status;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * Answers {@code GET /status}: one self-contained HTML page from the class path ({@code liveodds/status.html}),
 * with no data of its own. Its Content-Security-Policy lets it load nothing from anywhere: its script and style are
 * inline and its only requests go back to this server.
 */
public class StatusPage {

    static final String RESOURCE = "liveodds/status.html";
    static final String POLICY = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; "
            + "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    private final String html;

    public StatusPage() {
        try (InputStream in = StatusPage.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("class-path resource " + RESOURCE + " is missing");
            }
            html = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void answer(Exchange exchange) {
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, 200);
        message.setHeader(Exchange.CONTENT_TYPE, "text/html; charset=utf-8");
        message.setHeader("Cache-Control", "no-store");
        message.setHeader("Content-Security-Policy", POLICY);
        message.setBody(html);
    }
}
