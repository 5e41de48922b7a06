package com.liveodds.push.support;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * A partner made of a raw {@link ServerSocket} on 127.0.0.1, to misbehave precisely: each request (keep-alive
 * connections carry several) is read whole, recorded, and handed to a {@link Behaviour} that writes whatever it likes.
 */
public final class RawPartner implements AutoCloseable {

    /** Writes the answer to one request; returns false to close the connection afterwards. */
    @FunctionalInterface
    public interface Behaviour {
        boolean answer(Request request, Socket socket, OutputStream out) throws IOException, InterruptedException;
    }

    public record Request(String method, String path, List<String> headers, byte[] body) {
        public String header(String name) {
            String prefix = name.toLowerCase(Locale.ROOT) + ":";
            return headers.stream().filter(h -> h.toLowerCase(Locale.ROOT).startsWith(prefix))
                    .map(h -> h.substring(prefix.length()).trim()).findFirst().orElse(null);
        }
    }

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "raw-partner");
        t.setDaemon(true);
        return t;
    });
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean keepRequests = true;

    public RawPartner(Behaviour behaviour) {
        this(null, behaviour);
    }

    /** With {@code tls}, an HTTPS partner that requires a client certificate (mutual TLS). */
    public RawPartner(SSLContext tls, Behaviour behaviour) {
        try {
            if (tls == null) {
                server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
            } else {
                SSLServerSocket secure = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket(0, 512,
                        InetAddress.getLoopbackAddress());
                secure.setNeedClientAuth(true);
                server = secure;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        threads.execute(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    connections.incrementAndGet();
                    sockets.add(socket);
                    threads.execute(() -> serve(socket, behaviour));
                } catch (IOException closed) {
                    return;
                }
            }
        });
    }

    /** Answers every request with this status, no body, keeping the connection. */
    public static Behaviour status(int status, String... headers) {
        return (request, socket, out) -> {
            StringBuilder answer = new StringBuilder("HTTP/1.1 ").append(status).append(" X\r\n");
            for (String h : headers) {
                answer.append(h).append("\r\n");
            }
            answer.append("Content-Length: 0\r\n\r\n");
            out.write(answer.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return true;
        };
    }

    /** Answers every request with this status and JSON body, keeping the connection. */
    public static Behaviour json(int status, String body) {
        return (request, socket, out) -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
            return true;
        };
    }

    /** Answers without keeping the requests: a benchmark's hundreds of thousands would make the copy-on-write list its bottleneck. */
    public RawPartner keepingNoRequests() {
        keepRequests = false;
        return this;
    }

    public String baseUrl() {
        return (server instanceof SSLServerSocket ? "https" : "http") + "://127.0.0.1:" + server.getLocalPort();
    }

    public List<Request> requests() {
        return requests;
    }

    public int connections() {
        return connections.get();
    }

    private void serve(Socket socket, Behaviour behaviour) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                Request request = read(in);
                if (request == null) {
                    return;
                }
                if (keepRequests) {
                    requests.add(request);
                }
                if (!behaviour.answer(request, socket, out)) {
                    return;
                }
            }
        } catch (IOException | InterruptedException dropped) {
            // the client went away: that is what several tests provoke
        }
    }

    private static Request read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3)) ? matched + 1 : 0;
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] start = lines[0].split(" ");
        List<String> headers = List.of(lines).subList(1, lines.length);
        Request noBody = new Request(start[0], start[1], headers, new byte[0]);
        String length = noBody.header("Content-Length");
        byte[] body = in.readNBytes(length == null ? 0 : Integer.parseInt(length));
        return new Request(start[0], start[1], headers, body);
    }

    @Override
    public void close() {
        try {
            server.close();
            for (Socket s : sockets) {
                s.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
        threads.shutdownNow();
    }
}
