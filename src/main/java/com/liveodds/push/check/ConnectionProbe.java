package com.liveodds.push.check;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * What a high-level HTTP client hides, seen on a socket of our own opened with the partner connection's own
 * {@link SSLContext} ({@code liveodds.partner.tls.*}): which certificate the partner shows and whether it is valid for
 * the host, whether our client certificate was presented, and whether the partner keeps a connection open for a
 * second request.
 */
final class ConnectionProbe {

    /** Most of an answer read on the probe; the check's answers are small. */
    private static final int MAX_ANSWER = 64 * 1024;

    private final SSLContext tls;
    private final int timeoutMillis;

    ConnectionProbe(SSLContext tls, Duration timeout) {
        this.tls = tls;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    }

    /**
     * A TLS handshake with the host of {@code url}, host name verified as HTTPS does (RFC 2818).
     *
     * @throws IOException when the handshake fails, the certificate not being valid for the host among the reasons
     */
    TlsFacts handshake(URI url) throws IOException {
        try (SSLSocket socket = tlsSocket(url)) {
            Certificate[] peer = socket.getSession().getPeerCertificates();
            String subject = peer.length > 0 && peer[0] instanceof X509Certificate x509
                    ? x509.getSubjectX500Principal().getName() : "unknown";
            return new TlsFacts(socket.getSession().getProtocol(), subject, socket.getSession().getLocalCertificates() != null);
        }
    }

    /**
     * Two POSTs on one connection, the second sent only once the first is answered.
     *
     * @param first  the first request's headers (but {@code Host} and {@code Content-Length}) and body
     * @param second the second's
     */
    KeepAlive twoRequests(URI url, Map.Entry<Map<String, String>, String> first, Map.Entry<Map<String, String>, String> second)
            throws IOException {
        try (Socket socket = "https".equalsIgnoreCase(url.getScheme()) ? tlsSocket(url) : plainSocket(url)) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            write(out, url, first.getKey(), first.getValue());
            Answer one = read(in);
            if (one.closes()) {
                return new KeepAlive(one.status(), 0, "the first answer says Connection: close");
            }
            try {
                write(out, url, second.getKey(), second.getValue());
                Answer two = read(in);
                return new KeepAlive(one.status(), two.status(), null);
            } catch (IOException closed) {
                return new KeepAlive(one.status(), 0, "the connection was closed after the first answer ("
                        + closed.getClass().getSimpleName() + ")");
            }
        }
    }

    private Socket plainSocket(URI url) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(url.getHost(), port(url)), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    private SSLSocket tlsSocket(URI url) throws IOException {
        Socket plain = plainSocket(url);
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, url.getHost(), port(url), true);
        try {
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            if (!isIpLiteral(url.getHost())) {
                parameters.setServerNames(List.of(new SNIHostName(url.getHost())));
            }
            socket.setSSLParameters(parameters);
            socket.startHandshake();
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    private static void write(OutputStream out, URI url, Map<String, String> headers, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("POST ").append(url.getRawPath()).append(" HTTP/1.1\r\n")
                .append("Host: ").append(url.getHost()).append(':').append(port(url)).append("\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("Content-Length: ").append(bytes.length).append("\r\n\r\n");
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.flush();
    }

    /** One HTTP/1.1 answer, its body read off the connection (Content-Length or chunked) so the next can follow. */
    private static Answer read(InputStream in) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP/1.x answer");
        }
        int status = Integer.parseInt(parts[1]);
        boolean closes = parts[0].equals("HTTP/1.0");
        long length = -1;
        boolean chunked = false;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "connection" -> closes = value.contains("close") || (closes && !value.contains("keep-alive"));
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.contains("chunked");
                default -> { }
            }
        }
        if (chunked) {
            for (long size = chunkSize(line(in)); size > 0; size = chunkSize(line(in))) {
                skip(in, size);
                line(in);
            }
            while (!line(in).isEmpty()) {
                // trailers
            }
        } else if (length >= 0) {
            skip(in, length);
        } else {
            // no length: the body ends with the connection
            closes = true;
        }
        return new Answer(status, closes);
    }

    private static long chunkSize(String line) {
        int extension = line.indexOf(';');
        return Long.parseLong((extension < 0 ? line : line.substring(0, extension)).trim(), 16);
    }

    private static void skip(InputStream in, long bytes) throws IOException {
        if (bytes > MAX_ANSWER) {
            throw new IOException("answer larger than " + MAX_ANSWER + " bytes");
        }
        in.readNBytes((int) bytes);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed");
            }
            if (line.size() > 8192) {
                throw new IOException("header line too long");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    static int port(URI url) {
        return url.getPort() > 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    private static boolean isIpLiteral(String host) {
        return host.contains(":") || host.matches("[0-9.]+");
    }

    /** The handshake: protocol, the partner's certificate subject, and whether our client certificate went out. */
    record TlsFacts(String protocol, String peerSubject, boolean clientCertificatePresented) {
    }

    /**
     * Two requests on one connection: the statuses (0: none) and why the second got no answer, or null.
     */
    record KeepAlive(int firstStatus, int secondStatus, String closedBecause) {
    }

    private record Answer(int status, boolean closes) {
    }
}
