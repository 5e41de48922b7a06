package com.liveodds.push.httpapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract 22 as issue 31 measured it: 30 uploads of 16 MB each, without a token, to the recovery path of a service
 * held to the contract's 384 MB heap. Before the door the server read every body before any check (8,551
 * OutOfMemoryError lines, health 503 after the uploads, deliveries stopped). Now each is answered 401 after its head and
 * cut off, health stays UP, and the odds that arrive meanwhile are delivered.
 */
class UnauthenticatedUploadsTest {

    private static final int UPLOADS = 30;
    private static final long BODY = 16L * 1024 * 1024;

    @TempDir
    Path work;

    @Test
    void uploadsWithoutATokenAreCutAndDeliveryGoesOn() throws Exception {
        try (LoopbackPartner partner = new LoopbackPartner()) {
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
            settings.put("liveodds.fixtures.auth.tokens", "uploads-fixtures-token");
            int port = Integer.parseInt(settings.get("camel.server.port"));
            URI health = URI.create("http://127.0.0.1:" + settings.get("camel.management.port") + "/observe/health");
            try (ServiceProcess service = ServiceProcess.start(settings, work.resolve("service.log"), "384m")) {
                await().atMost(Duration.ofSeconds(60)).until(() -> ServiceProcess.answersOk(health));
                Path inbox = work.resolve("inbox");

                ExecutorService uploaders = Executors.newFixedThreadPool(UPLOADS);
                List<Future<Upload>> uploads = new ArrayList<>();
                try {
                    for (int i = 0; i < UPLOADS; i++) {
                        uploads.add(uploaders.submit(() -> upload(port)));
                    }
                    for (int i = 0; i < 20; i++) {
                        RunningService.drop(inbox, "upload-" + i + ".json",
                                Messages.odds("during-uploads-" + i, Messages.external("up-" + i, 44120040 + i)));
                    }
                    for (Future<Upload> upload : uploads) {
                        Upload done = upload.get();
                        assertThat(done.status).isEqualTo(401);
                        // the server closed the connection long before the 16 MB were sent (what was sent is socket buffers)
                        assertThat(done.sent).isLessThan(BODY / 2);
                    }
                } finally {
                    uploaders.shutdownNow();
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> partner.arrivals().stream()
                        .filter(a -> a.messageId() != null && a.messageId().startsWith("during-uploads-")).count() == 20);
                assertThat(ServiceProcess.answersOk(health)).as("health after the uploads").isTrue();
                assertThat(service.isAlive()).isTrue();
                assertThat(service.log()).doesNotContain("OutOfMemoryError");
            }
        }
    }

    private record Upload(int status, long sent) {
    }

    /** A 16 MB body announced without a token, its head first, then the body at full speed until the server cuts it. */
    private static Upload upload(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/liveodds/42/recovery HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + BODY + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            int status = status(socket.getInputStream());
            byte[] chunk = new byte[64 * 1024];
            long sent = 0;
            try {
                while (sent < BODY) {
                    out.write(chunk);
                    sent += chunk.length;
                }
            } catch (IOException cut) {
                // the server closed the connection: the rest is never taken
            }
            return new Upload(status, sent);
        }
    }

    private static int status(InputStream in) throws IOException {
        byte[] line = new byte[12];
        int read = in.readNBytes(line, 0, line.length);
        assertThat(read).isEqualTo(12);
        return Integer.parseInt(new String(line, 9, 3, StandardCharsets.US_ASCII));
    }
}
