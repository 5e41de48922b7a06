package com.liveodds.push.httpapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 9: what the service exposes. Loopback only in the embedded default, JSON for unknown paths, no JMS password in the log. */
class ExposureTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theEmbeddedDefaultListensOnLoopbackOnlyAndAnswersUnknownPathsInJson(@TempDir Path work) throws Exception {
        try (CapturedLogs logs = CapturedLogs.all();
             RunningService service = RunningService.builder().work(work)
                     .unset("camel.server.host")
                     .set("liveodds.demo.producer", "false")
                     .set("liveodds.source.jms.url", "tcp://127.0.0.1:61616?user=u&password=jms-url-secret-1")
                     .start()) {
            assertThat(listenAddress(service.serverPort())).isEqualTo("127.0.0.1");
            assertThat(listenAddress(service.managementPort())).isEqualTo("127.0.0.1");

            for (String path : List.of("/", "/nothing", "/v1/liveodds", "/v1/ingest/x", "/favicon.ico")) {
                HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + path))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).as(path).isEqualTo(404);
                assertThat(response.headers().firstValue("Content-Type")).as(path).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
                assertThat(JSON.readTree(response.body()).path("error").asText()).isEqualTo("not_found");
            }
            // the real routes are not shadowed
            assertThat(service.request("GET", "/v1/liveodds/1/fixtures", null).statusCode()).isEqualTo(401);

            // the sandbox's token endpoint takes the client credentials from the form body only
            String form = "grant_type=client_credentials&client_id=sandbox-client&client_secret=sandbox-secret&audience=x";
            assertThat(tokenRequest(service, "", form, null).statusCode()).isEqualTo(200);
            assertThat(tokenRequest(service, "?client_secret=sandbox-secret", "grant_type=client_credentials&client_id=sandbox-client&audience=x", null)
                    .statusCode()).isEqualTo(400);
            assertThat(tokenRequest(service, "?client_id=sandbox-client&client_secret=sandbox-secret", form, null).statusCode()).isEqualTo(400);
            HttpResponse<String> inHeaders = tokenRequest(service, "", "grant_type=client_credentials&audience=x", "sandbox-secret");
            assertThat(inHeaders.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(inHeaders.body()).path("error").asText()).isEqualTo("invalid_request");
            assertThat(logs.messages()).isNotEmpty().noneMatch(m -> m.contains("jms-url-secret-1"));
        }
    }

    @Test
    void outsideTheEmbeddedDefaultTheListenAddressesAreTheSettings() throws Exception {
        try (RunningService service = RunningService.builder().partner("http://127.0.0.1:1/partner", "http://127.0.0.1:1/auth")
                .unset("camel.server.host").set("camel.management.host", "127.0.0.1").start()) {
            assertThat(listenAddress(service.serverPort())).isEqualTo("0.0.0.0");
            assertThat(listenAddress(service.managementPort())).isEqualTo("127.0.0.1");
        }
    }

    private static HttpResponse<String> tokenRequest(RunningService service, String query, String form, String secretHeader) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/sandbox/oauth/token" + query))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form));
        if (secretHeader != null) {
            request.header("client_id", "sandbox-client").header("client_secret", secretHeader);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The local address of the listening TCP socket on this port, from /proc/net/tcp (and tcp6). */
    private static String listenAddress(int port) throws Exception {
        String hexPort = String.format("%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 3 && f[1].toUpperCase(Locale.ROOT).endsWith(":" + hexPort) && "0A".equals(f[3])) {
                    String address = f[1].substring(0, f[1].indexOf(':'));
                    if (address.equals("0100007F") || address.equals("0000000000000000FFFF00000100007F")
                            || address.equals("00000000000000000000000001000000")) {
                        return "127.0.0.1";
                    }
                    if (address.matches("0+")) {
                        return "0.0.0.0";
                    }
                    return address;
                }
            }
        }
        throw new AssertionError("nothing listens on port " + port);
    }
}
