package com.liveodds.push.httpapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.TwoPartners;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partner door of contract 22 on a running service with two real partners (a, id 101, and b, id 202): a token
 * counts only in the {@code Authorization} header, a body is judged by its size and its token before a byte of it is
 * read, each partner's paths have their share (here 2 at once, 8 a minute) that another partner's requests never
 * wait for, and every refusal is JSON. Requests are written on raw sockets, as an attacker writes them.
 */
class PartnerDoorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN_A = "door-a-token";
    private static final String TOKEN_B = "door-b-token";
    private static final String ADMIN = "door-admin-token";

    @TempDir
    static Path work;
    private static TwoPartners partners;
    private static RunningService service;

    @BeforeAll
    static void start() throws Exception {
        partners = new TwoPartners(TOKEN_A, TOKEN_B);
        service = partners.service(work)
                .set("liveodds.admin.tokens", ADMIN)
                .set("liveodds.partner.api.max-concurrent", "2")
                .set("liveodds.partner.api.max-requests", "8")
                // a body that never ends is cut at the attempt time-out
                .set("liveodds.delivery.timeout", "2s")
                .start();
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
        partners.close(ADMIN);
    }

    @Test
    void aTokenOutsideTheAuthorizationHeaderIsRefused() throws Exception {
        for (String path : List.of("/v1/liveodds/101/booking?Authorization=Bearer%20" + TOKEN_A,
                "/v1/liveodds/101/fixtures/?x;Authorization=Bearer%20" + TOKEN_A, "/v1/liveodds/101/booking?AUTHORIZATION=Bearer+" + TOKEN_A,
                "/v1/liveodds/101/booking?authorization=Bearer+" + TOKEN_A, "/v1/liveodds/101/booking?access_token=" + TOKEN_A,
                "/admin/status?Authorization=Bearer%20" + ADMIN)) {
            Answer answer = send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", null);
            assertThat(answer.status).as(path).isEqualTo(401);
            assertThat(answer.error()).isEqualTo("unauthorized");
            assertThat(answer.text).doesNotContain(TOKEN_A).doesNotContain(ADMIN);
        }
        // a form body is bytes, never headers: the booking is not made
        String form = "Authorization=Bearer+" + TOKEN_A;
        Answer put = send("PUT /v1/liveodds/101/booking/match:41234599 HTTP/1.1\r\nHost: x\r\n"
                + "Connection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + form.length() + "\r\n\r\n", form);
        assertThat(put.status).isEqualTo(401);
        assertThat(service.request("GET", "/v1/liveodds/101/booking", "Bearer " + TOKEN_A).body()).doesNotContain("41234599");
    }

    @Test
    void aBodyWithoutAValidTokenIsNeverRead() throws Exception {
        // 16 MB announced; the answer comes before a byte of it is sent, and the connection is closed after it; a
        // trailing slash (which Vert.x routes to the same route) changes nothing
        for (String authorization : new String[] {null, "Bearer nope", "Bearer " + TOKEN_B}) {
            for (String path : List.of("/v1/liveodds/101/recovery", "/v1/liveodds/101/recovery/", "/v1/liveodds/101/recovery/.")) {
                String head = "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                        + "Content-Length: 16777216\r\n\r\n";
                Answer answer = send(head, null);
                // another partner's token: 404, exactly as for an id that is no partner's
                assertThat(answer.status).as(path + " " + authorization)
                        .isEqualTo(authorization != null && authorization.contains(TOKEN_B) ? 404 : 401);
                assertThat(answer.closed).isTrue();
            }
        }
        // a method not served, a path nothing serves: answered before the body too
        for (String head : List.of("DELETE /admin/status HTTP/1.1\r\n", "POST /v1/liveodds/101/nothing HTTP/1.1\r\n",
                "POST /status/nothing HTTP/1.1\r\n")) {
            Answer answer = send(head + "Host: x\r\nContent-Length: 16777216\r\n\r\n", null);
            assertThat(answer.status).as(head).isIn(404, 405);
            assertThat(answer.closed).isTrue();
        }
    }

    @Test
    void eachPathReadsAtMostItsLimitAndAnswersInJson() throws Exception {
        String tooLarge = "{\"match\": \"" + "9".repeat(5000) + "\"}";
        Answer declared = send("POST /v1/liveodds/101/recovery HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN_A
                + "\r\nContent-Length: " + tooLarge.length() + "\r\n\r\n", null);
        assertThat(declared.status).isEqualTo(413);
        assertThat(declared.error()).isEqualTo("payload_too_large");
        // chunked: read until the limit, then refused
        String chunk = Integer.toHexString(tooLarge.length()) + "\r\n" + tooLarge + "\r\n0\r\n\r\n";
        Answer chunked = send("POST /v1/liveodds/101/recovery HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN_A
                + "\r\nTransfer-Encoding: chunked\r\n\r\n", chunk);
        assertThat(chunked.status).isEqualTo(413);
        assertThat(chunked.error()).isEqualTo("payload_too_large");
        // the operator paths take 64 KiB
        Answer admin = send("POST /admin/dead-letters/replay HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + ADMIN
                + "\r\nContent-Length: 70000\r\n\r\n", null);
        assertThat(admin.status).isEqualTo(413);
        assertThat(admin.text).startsWith("{");
        // a method not served: 405 in JSON
        Answer method = send("DELETE /admin/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", null);
        assertThat(method.status).isEqualTo(405);
        assertThat(method.error()).isEqualTo("method_not_allowed");
        // every verb of a path the REST DSL serves with several is named
        Answer booking = send("POST /v1/liveodds/101/booking/match:41234597 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                + "Content-Length: 0\r\n\r\n", null);
        assertThat(booking.status).isEqualTo(405);
        assertThat(booking.header("Allow")).isEqualTo("DELETE, PUT");
    }

    @Test
    void aBodyThatNeverEndsIsCutAtTheTimeOut() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", service.serverPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /v1/liveodds/101/booking/match:41234598 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN_A
                    + "\r\nContent-Length: 100\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Answer answer = Answer.read(socket.getInputStream());
            assertThat(answer.status).isEqualTo(408);
            assertThat(answer.error()).isEqualTo("request_timeout");
            assertThat(answer.closed).isTrue();
        }
    }

    @Test
    void onePartnerOverItsShareGets429WhileTheOtherIsServed() throws Exception {
        // partner a holds its two places with bodies it does not send
        List<Socket> holding = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Socket socket = new Socket("127.0.0.1", service.serverPort());
                socket.setSoTimeout(30_000);
                holding.add(socket);
                socket.getOutputStream().write(("PUT /v1/liveodds/101/booking/match:4123459" + i + " HTTP/1.1\r\nHost: x\r\n"
                        + "Authorization: Bearer " + TOKEN_A + "\r\nContent-Length: 10\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> fixtures(TOKEN_A).status == 429);
            Answer refused = fixtures(TOKEN_A);
            assertThat(refused.status).isEqualTo(429);
            assertThat(refused.header("Retry-After")).isNotNull();
            assertThat(refused.error()).isEqualTo("too_many_requests");
            assertThat(fixtures(TOKEN_B).status).isEqualTo(200);
            // cut at the time-out, the places are free again
            for (Socket socket : holding) {
                assertThat(Answer.read(socket.getInputStream()).status).isEqualTo(408);
            }
        } finally {
            for (Socket socket : holding) {
                socket.close();
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> fixtures(TOKEN_A).status == 200);
        // then its minute: 8 requests at most, each counted once admitted
        int served = 0;
        Answer last;
        while ((last = fixtures(TOKEN_A)).status == 200) {
            served++;
        }
        assertThat(served).isLessThanOrEqualTo(8);
        assertThat(last.status).isEqualTo(429);
        assertThat(Long.parseLong(last.header("Retry-After"))).isGreaterThan(1);
        // b and live delivery go on
        assertThat(fixtures(TOKEN_B).status).isEqualTo(200);
        service.drop("door-live.json", Messages.odds("door-live-1", Messages.external("door-1", 44120031)));
        await().atMost(Duration.ofSeconds(30)).until(() -> partners.b.arrivals().stream().anyMatch(x -> "door-live-1".equals(x.messageId())));
    }

    @Test
    void aPathTheServerCannotDecodeIsAnsweredInJson() throws Exception {
        Answer badEscape = send("GET /v1/liveodds/%zz/fixtures HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", null);
        assertThat(badEscape.status).isEqualTo(400);
        assertThat(badEscape.error()).isEqualTo("bad_request");
        assertThat(badEscape.text).doesNotContain("Exception");
        // a head Vert.x cannot parse is refused before any router: no body, the connection closed, nothing of it read on
        Answer hugeHeader = send("GET /v1/liveodds/101/fixtures HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000)
                + "\r\nConnection: close\r\n\r\n", null);
        assertThat(hugeHeader.status).isEqualTo(431);
        assertThat(hugeHeader.closed).isTrue();
    }

    private static Answer fixtures(String token) throws IOException {
        String id = TOKEN_A.equals(token) ? "101" : "202";
        return send("GET /v1/liveodds/" + id + "/fixtures HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token
                + "\r\nConnection: close\r\n\r\n", null);
    }

    /** Writes a request's head (and body), then reads the answer and whether the server closed the connection. */
    private static Answer send(String head, String body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", service.serverPort())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            if (body != null) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
            out.flush();
            return Answer.read(socket.getInputStream());
        }
    }

    /** An HTTP/1.1 answer read off a socket: status, head, body (by Content-Length), and whether EOF followed. */
    private record Answer(int status, String head, String text, boolean closed) {

        static Answer read(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new IOException("connection closed before an answer: " + head);
                }
                head.append((char) b);
            }
            int status = Integer.parseInt(head.substring(9, 12));
            Answer partial = new Answer(status, head.toString(), "", false);
            String length = partial.header("Content-Length");
            byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length));
            boolean closed;
            try {
                closed = in.read() < 0;
            } catch (java.net.SocketTimeoutException open) {
                closed = false;
            } catch (java.net.SocketException reset) {
                closed = true;
            }
            return new Answer(status, head.toString(), new String(body, StandardCharsets.UTF_8), closed);
        }

        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }

        String error() throws IOException {
            JsonNode json = JSON.readTree(text);
            return json.path("error").asText();
        }
    }
}
