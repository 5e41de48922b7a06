package com.liveodds.push.partner;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import com.liveodds.push.settings.Durations;

/**
 * Interim partner client (replaced by the hardened one of the partner connection work): one POST per attempt,
 * asynchronous, no redirects.
 */
public class PartnerClient {

    private static final int KEPT = 4096;
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .version(HttpClient.Version.HTTP_1_1).build();
    private String baseUrl;
    private Duration timeout = Duration.ofSeconds(10);

    public void setBaseUrl(String baseUrl) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl : baseUrl + "/";
    }

    public void setTimeout(String timeout) {
        this.timeout = Durations.parse(timeout);
    }

    public CompletableFuture<PartnerAnswer> post(String path, String authorization, String idempotencyKey, byte[] body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout)
                .header("Authorization", authorization).header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .orTimeout(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .handle((response, error) -> {
                    if (error != null) {
                        Throwable cause = error.getCause() != null ? error.getCause() : error;
                        boolean timedOut = cause instanceof HttpTimeoutException || cause instanceof java.util.concurrent.TimeoutException;
                        return new PartnerAnswer(0, null, null, null, cause.getClass().getSimpleName()
                                + (cause.getMessage() != null ? ": " + cause.getMessage() : ""), timedOut);
                    }
                    byte[] bytes = response.body();
                    String text = new String(bytes, 0, Math.min(bytes.length, KEPT), StandardCharsets.UTF_8);
                    return new PartnerAnswer(response.statusCode(), response.headers().firstValue("Retry-After").orElse(null),
                            response.headers().firstValue("Location").orElse(null), text, null, false);
                });
    }
}
