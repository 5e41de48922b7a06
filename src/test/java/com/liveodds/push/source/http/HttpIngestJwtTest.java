package com.liveodds.push.source.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import com.liveodds.push.support.JwtIssuer;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;

/** The HTTP source in jwt mode: the check that may fetch the JWKS runs off the event loop, still before the body. */
class HttpIngestJwtTest {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void jwtModeChecksTheBearerBeforeTheBodyAndServesValidTokens() throws Exception {
        try (JwtIssuer issuer = new JwtIssuer();
             WireMockPartner partner = new WireMockPartner().acceptingEverything();
             RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                     .set("liveodds.source", "http")
                     .set("liveodds.fixtures.auth.mode", "jwt")
                     .set("liveodds.fixtures.auth.jwks-url", issuer.jwksUrl())
                     .set("liveodds.fixtures.auth.issuer", JwtIssuer.ISSUER)
                     .set("liveodds.fixtures.auth.audience", JwtIssuer.AUDIENCE)
                     .start()) {
            String message = Messages.odds("jwt-valid-1", Messages.external("1", 6161));
            assertThat(post(service, message, "Bearer " + issuer.token()).statusCode()).isEqualTo(202);
            String otherAudience = issuer.sign(JwtIssuer.validClaims().audience("another-api").build());
            for (String authorization : new String[] {null, "Bearer " + otherAudience, "Bearer not-a-jwt"}) {
                HttpResponse<String> refused = post(service, message, authorization);
                assertThat(refused.statusCode()).isEqualTo(401);
                assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            }
            try (Socket socket = new Socket("127.0.0.1", service.serverPort())) {
                socket.getOutputStream().write(("POST /v1/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + otherAudience
                        + "\r\nContent-Length: 16777116\r\nExpect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                InputStream in = socket.getInputStream();
                StringBuilder line = new StringBuilder();
                for (int c = in.read(); c != -1 && c != '\r'; c = in.read()) {
                    line.append((char) c);
                }
                assertThat(line.toString()).startsWith("HTTP/1.1 401");
            }
            assertThat(partner.pushes()).hasSize(1);
        }
    }

    private static HttpResponse<String> post(RunningService service, String body, String authorization) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.serverPort() + "/v1/ingest"))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
