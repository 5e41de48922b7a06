package com.liveodds.push.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import com.liveodds.push.support.RawPartner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The raw baseline's HTTP/1.1 client against a real server socket on 127.0.0.1 that writes answers byte by byte. */
class PlainHttpConnectionTest {

    private static final Map<String, String> HEADERS = headers();

    private static Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Authorization", "Bearer t0ken");
        h.put("Content-Type", "application/json");
        h.put("Idempotency-Key", "m-1");
        return h;
    }

    /** Answers by path with these exact bytes, keeping the connection. */
    private static RawPartner.Behaviour answers(Map<String, String> byPath) {
        return (request, socket, out) -> {
            out.write(byPath.get(request.path()).getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return true;
        };
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void oneKeptAliveConnectionCarriesContentLengthChunkedAndEmptyAnswers() throws IOException {
        try (RawPartner server = new RawPartner(answers(Map.of(
                "/length", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
                "/chunked", "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nhel\r\n2\r\nlo\r\n0\r\nX-Trailer: y\r\n\r\n",
                "/accepted", "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n",
                "/no-content", "HTTP/1.1 204 No Content\r\n\r\n")));
             PlainHttpConnection connection = new PlainHttpConnection(URI.create(server.baseUrl()))) {
            PlainHttpConnection.Answer accepted = connection.post("/accepted", HEADERS, bytes("{\"a\":1}"));
            PlainHttpConnection.Answer length = connection.post("/length", HEADERS, bytes("{}"));
            PlainHttpConnection.Answer chunked = connection.post("/chunked", HEADERS, bytes("{}"));
            PlainHttpConnection.Answer noContent = connection.post("/no-content", HEADERS, bytes("{}"));
            PlainHttpConnection.Answer again = connection.post("/accepted", HEADERS, bytes("{}"));

            assertThat(accepted.status()).isEqualTo(202);
            assertThat(accepted.body()).isEmpty();
            assertThat(length.status()).isEqualTo(200);
            assertThat(length.text()).isEqualTo("hello");
            assertThat(chunked.text()).isEqualTo("hello");
            assertThat(noContent.status()).isEqualTo(204);
            assertThat(again.status()).isEqualTo(202);
            // every answer was read to its end, or the next one would have been misread
            assertThat(server.connections()).isEqualTo(1);
            assertThat(connection.isOpen()).isTrue();
            RawPartner.Request first = server.requests().get(0);
            assertThat(first.method()).isEqualTo("POST");
            assertThat(first.path()).isEqualTo("/accepted");
            assertThat(first.header("Host")).isEqualTo("127.0.0.1:" + URI.create(server.baseUrl()).getPort());
            assertThat(first.header("Authorization")).isEqualTo("Bearer t0ken");
            assertThat(first.header("Content-Type")).isEqualTo("application/json");
            assertThat(first.header("Idempotency-Key")).isEqualTo("m-1");
            assertThat(first.header("Content-Length")).isEqualTo("7");
            assertThat(new String(first.body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        }
    }

    @Test
    void aConnectionTheServerClosesIsReplacedByANewOne() throws IOException {
        try (RawPartner server = new RawPartner((request, socket, out) -> {
            if (request.path().equals("/close")) {
                write(out, "HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
            } else {
                // neither a length nor chunked: the body ends where the server closes
                write(out, "HTTP/1.1 200 OK\r\n\r\nto the end");
            }
            return false;
        });
             PlainHttpConnection connection = new PlainHttpConnection(URI.create(server.baseUrl()))) {
            assertThat(connection.post("/close", HEADERS, bytes("{}")).status()).isEqualTo(202);
            assertThat(connection.isOpen()).isFalse();
            assertThat(connection.post("/until-close", HEADERS, bytes("{}")).text()).isEqualTo("to the end");
            assertThat(connection.post("/close", HEADERS, bytes("{}")).status()).isEqualTo(202);
            assertThat(server.connections()).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SSH-2.0-OpenSSH_9.6\r\n\r\n",
            "HTTP/1.1 2x2 Odd\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 202 Accepted\r\nno colon here\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7FFFFFFF\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY",
            "HTTP/1.1 202 Acc",
            ""})
    void aMalformedOrCutAnswerFailsTheRequestAndDropsTheConnection(String answer) throws IOException {
        try (RawPartner server = new RawPartner((request, socket, out) -> {
            write(out, answer);
            return false;
        });
             PlainHttpConnection connection = new PlainHttpConnection(URI.create(server.baseUrl()))) {
            assertThatThrownBy(() -> connection.post("/odds", HEADERS, bytes("{}"))).isInstanceOf(IOException.class);
            assertThat(connection.isOpen()).isFalse();
        }
    }

    @Test
    void endlessHeadersOrLinesAreCutOff() throws IOException {
        String longLine = "HTTP/1.1 200 OK\r\nX-Long: " + "a".repeat(100_000) + "\r\n\r\n";
        String manyHeaders = "HTTP/1.1 200 OK\r\n" + "X-Many: 1\r\n".repeat(10_000) + "\r\n";
        for (String answer : new String[] {longLine, manyHeaders}) {
            try (RawPartner server = new RawPartner((request, socket, out) -> {
                write(out, answer);
                return false;
            });
                 PlainHttpConnection connection = new PlainHttpConnection(URI.create(server.baseUrl()))) {
                assertThatThrownBy(() -> connection.post("/odds", HEADERS, bytes("{}")))
                        .isInstanceOf(java.net.ProtocolException.class);
            }
        }
    }

    @Test
    void aLineBreakInAHeaderIsRefusedAndNothingOfItIsSent() throws IOException {
        try (RawPartner server = new RawPartner(RawPartner.status(202));
             PlainHttpConnection connection = new PlainHttpConnection(URI.create(server.baseUrl()))) {
            Map<String, String> split = new LinkedHashMap<>(HEADERS);
            split.put("Idempotency-Key", "m-1\r\n\r\nPOST /evil HTTP/1.1");
            assertThatThrownBy(() -> connection.post("/odds", split, bytes("{}"))).isInstanceOf(IllegalArgumentException.class);
            assertThat(connection.post("/odds", HEADERS, bytes("{}")).status()).isEqualTo(202);
            assertThat(server.requests()).extracting(RawPartner.Request::path).containsExactly("/odds");
        }
    }

    private static void write(OutputStream out, String answer) throws IOException {
        out.write(answer.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }
}
