package com.liveodds.push.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The cheapest honest HTTP/1.1 client: one blocking {@link Socket} kept alive between requests, the request written
 * by hand, the answer read as the status line, the headers and a body framed by Content-Length or chunked (or, with
 * neither, by the server closing). What a partner integration costs with nothing between the code and the socket: the
 * raw baseline of the bench ({@link RawBaseline}). Not thread-safe: one connection, one thread.
 */
final class PlainHttpConnection implements AutoCloseable {

    /** An answer: its status and body (the bench reads the token endpoint's; the pushes' are empty). */
    record Answer(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Limits against a broken or hostile server: a line, the headers in all, a body. */
    private static final int MAX_LINE = 8 * 1024;
    private static final int MAX_HEADERS = 100;
    private static final int MAX_BODY = 1024 * 1024;
    private static final int TIMEOUT_MS = 10_000;

    private final String host;
    private final int port;
    private final String hostPort;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    /** To the host and port of this URL (http only); connects at the first request. */
    PlainHttpConnection(URI url) {
        if (!"http".equals(url.getScheme()) || url.getHost() == null) {
            throw new IllegalArgumentException("an http:// URL with a host: " + url);
        }
        this.host = url.getHost();
        this.port = url.getPort() < 0 ? 80 : url.getPort();
        this.hostPort = host + ":" + port;
    }

    /**
     * POSTs the body to the target (path and query) with these headers (Host and Content-Length are added) and reads
     * the whole answer. The connection stays open for the next request unless the server closes it; after an
     * {@link IOException} it is closed, and the next request opens a new one.
     */
    Answer post(String target, Map<String, String> headers, byte[] body) throws IOException {
        try {
            if (socket == null) {
                connect();
            }
            StringBuilder head = new StringBuilder(256).append("POST ").append(checked(target)).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(hostPort).append("\r\n");
            headers.forEach((name, value) -> head.append(checked(name)).append(": ").append(checked(value)).append("\r\n"));
            head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return readAnswer();
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** A line break in a header or the target would start a request of its own (request splitting). */
    private static String checked(String text) {
        if (text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("a line break in a request line or header");
        }
        return text;
    }

    private void connect() throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            s.setSoTimeout(TIMEOUT_MS);
        } catch (IOException e) {
            s.close();
            throw e;
        }
        socket = s;
        in = new BufferedInputStream(s.getInputStream(), 8192);
        out = new BufferedOutputStream(s.getOutputStream(), 8192);
    }

    private Answer readAnswer() throws IOException {
        String statusLine = readLine();
        // HTTP/1.x NNN reason
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12 || statusLine.charAt(8) != ' ') {
            throw new ProtocolException("not an HTTP/1.x status line: " + printable(statusLine));
        }
        int status = parseStatus(statusLine.substring(9, 12));
        boolean close = statusLine.startsWith("HTTP/1.0");
        long length = -1;
        boolean chunked = false;
        for (int count = 0; ; count++) {
            String line = readLine();
            if (line.isEmpty()) {
                break;
            }
            if (count == MAX_HEADERS) {
                throw new ProtocolException("more than " + MAX_HEADERS + " header lines");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new ProtocolException("malformed header line: " + printable(line));
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "content-length" -> length = parseLength(value);
                case "transfer-encoding" -> chunked = value.endsWith("chunked");
                case "connection" -> close = value.contains("close") || (close && !value.contains("keep-alive"));
                default -> { }
            }
        }
        byte[] body;
        if (status / 100 == 1 || status == 204 || status == 304) {
            body = new byte[0];
        } else if (chunked) {
            body = readChunked();
        } else if (length >= 0) {
            body = readExactly((int) length);
        } else {
            body = readToEnd();
            close = true;
        }
        if (close) {
            close();
        }
        return new Answer(status, body);
    }

    private static int parseStatus(String digits) throws ProtocolException {
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                throw new ProtocolException("status is not three digits: " + printable(digits));
            }
        }
        return Integer.parseInt(digits);
    }

    private static long parseLength(String value) throws ProtocolException {
        try {
            long length = Long.parseLong(value);
            if (length < 0 || length > MAX_BODY) {
                throw new ProtocolException("Content-Length out of range: " + printable(value));
            }
            return length;
        } catch (NumberFormatException e) {
            throw new ProtocolException("Content-Length is not a number: " + printable(value));
        }
    }

    private byte[] readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            String sizeLine = readLine();
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim();
            int size;
            try {
                size = Integer.parseInt(hex, 16);
            } catch (NumberFormatException e) {
                throw new ProtocolException("chunk size is not hex: " + printable(sizeLine));
            }
            if (size < 0 || body.size() + (long) size > MAX_BODY) {
                throw new ProtocolException("chunked body over " + MAX_BODY + " bytes");
            }
            if (size == 0) {
                break;
            }
            body.write(readExactly(size));
            if (!readLine().isEmpty()) {
                throw new ProtocolException("chunk not followed by CRLF");
            }
        }
        // trailers, up to the empty line
        for (int count = 0; !readLine().isEmpty(); count++) {
            if (count == MAX_HEADERS) {
                throw new ProtocolException("more than " + MAX_HEADERS + " trailer lines");
            }
        }
        return body.toByteArray();
    }

    private byte[] readExactly(int length) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
            throw new EOFException("body ended after " + bytes.length + " of " + length + " bytes");
        }
        return bytes;
    }

    private byte[] readToEnd() throws IOException {
        byte[] bytes = in.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
            throw new ProtocolException("body over " + MAX_BODY + " bytes");
        }
        return bytes;
    }

    /** A line ended by CRLF (or a bare LF), without it, in ISO-8859-1. */
    private String readLine() throws IOException {
        StringBuilder line = new StringBuilder(64);
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException(line.length() == 0 ? "connection closed by the server" : "connection closed mid-line");
            }
            if (line.length() == MAX_LINE) {
                throw new ProtocolException("line longer than " + MAX_LINE + " bytes");
            }
            line.append((char) b);
        }
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1) : line.toString();
    }

    /** What a hostile server sent, cut short and with control characters shown as '?', for an error message. */
    private static String printable(String text) {
        String cut = text.length() > 80 ? text.substring(0, 80) + "…" : text;
        return cut.replaceAll("[\\p{Cntrl}]", "?");
    }

    /** Whether a connection is open (the next request reuses it). */
    boolean isOpen() {
        return socket != null;
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // nothing left to release
            }
            socket = null;
            in = null;
            out = null;
        }
    }
}
