package com.liveodds.push.source.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9, finding 1: 160 parallel unauthenticated {@code POST /v1/ingest} of 16 MB each against the service in its
 * own JVM with a 384 MB heap. Each is answered 401 before its body is read (no {@code 100 Continue}), the service
 * keeps answering everyone else, and it does not run out of memory.
 */
class HttpFloodTest {

    private static final int FLOOD = 160;
    private static final long DECLARED = 16_777_116;
    private static final String TOKEN = "flood-token-1";

    @Test
    void aFloodOfLargeUnauthenticatedRequestsIsRefusedUnreadAndTheServiceAnswersEveryoneElse(@TempDir Path work) throws Exception {
        int port = RunningService.freePort();
        int management = RunningService.freePort();
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything()) {
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
            settings.put("liveodds.partner.client-secret", "flood-secret");
            settings.put("liveodds.source", "http");
            settings.put("liveodds.fixtures.auth.tokens", TOKEN);
            settings.put("camel.server.port", Integer.toString(port));
            settings.put("camel.management.port", Integer.toString(management));
            try (ServiceProcess service = ServiceProcess.start(settings, work.resolve("service.log"), "384m")) {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                service.awaitLive(management, Duration.ofSeconds(90));

                ExecutorService pool = Executors.newFixedThreadPool(FLOOD);
                try {
                    List<Future<String>> expecting = new ArrayList<>();
                    List<Future<String>> streaming = new ArrayList<>();
                    for (int i = 0; i < FLOOD; i++) {
                        if (i % 2 == 0) {
                            expecting.add(pool.submit(() -> firstStatusLine(port, null, true)));
                        } else {
                            streaming.add(pool.submit(() -> streamBody(port)));
                        }
                    }
                    // while the flood runs, an authenticated producer is served
                    HttpResponse<String> valid = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/ingest"))
                            .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(20))
                            .POST(HttpRequest.BodyPublishers.ofString(Messages.odds("flood-valid-1", Messages.external("1", 5151))))
                            .build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(valid.statusCode()).isEqualTo(202);

                    for (Future<String> f : expecting) {
                        assertThat(f.get(60, TimeUnit.SECONDS)).as("no 100 Continue, the 401 at once").startsWith("HTTP/1.1 401");
                    }
                    for (Future<String> f : streaming) {
                        assertThat(f.get(60, TimeUnit.SECONDS)).isIn("HTTP/1.1 401 Unauthorized", "closed");
                    }
                } finally {
                    pool.shutdownNow();
                }

                // an authenticated caller with a declared body above max-body: 413, also without 100 Continue
                assertThat(firstStatusLine(port, "Bearer " + TOKEN, true)).startsWith("HTTP/1.1 413");
                assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/ingest"))
                        .header("Authorization", "Bearer " + TOKEN)
                        .POST(HttpRequest.BodyPublishers.ofString(Messages.odds("flood-valid-2", Messages.external("1", 5151))))
                        .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(202);
                assertThat(service.isAlive()).isTrue();
                assertThat(service.log()).doesNotContain("OutOfMemoryError");
                assertThat(partner.pushes("odds")).as("the two valid messages; heartbeats may come meanwhile").hasSize(2);
            }
        }
    }

    /** Sends only the headers of a 16 MB POST, and returns the first status line the server answers. */
    private static String firstStatusLine(int port, String authorization, boolean expectContinue) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(headers(authorization, expectContinue));
            return statusLine(socket.getInputStream());
        }
    }

    /** Sends the headers and then streams the body without waiting; returns the status line, or "closed". */
    private static String streamBody(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(headers(null, false));
            byte[] chunk = new byte[64 * 1024];
            try {
                for (long sent = 0; sent < DECLARED; sent += chunk.length) {
                    out.write(chunk, 0, (int) Math.min(chunk.length, DECLARED - sent));
                }
            } catch (IOException closedByServer) {
                // expected: the server answered and closed without reading the body
            }
            try {
                String line = statusLine(socket.getInputStream());
                return line.isEmpty() ? "closed" : line;
            } catch (IOException reset) {
                return "closed";
            }
        }
    }

    private static byte[] headers(String authorization, boolean expectContinue) {
        return ("POST /v1/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + DECLARED + "\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                + (expectContinue ? "Expect: 100-continue\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
