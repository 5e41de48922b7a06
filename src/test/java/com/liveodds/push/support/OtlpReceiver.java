package com.liveodds.push.support;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.Span;

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 ({@code POST /v1/traces}, protobuf), as a collector would be: what the
 * service's exporter sends, decoded with the OTLP classes of opentelemetry-proto.
 */
public final class OtlpReceiver implements AutoCloseable {

    private final HttpServer server;
    private final List<Span> spans = new CopyOnWriteArrayList<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            try (InputStream in = exchange.getRequestBody()) {
                if ("/v1/traces".equals(exchange.getRequestURI().getPath())) {
                    ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(in);
                    request.getResourceSpansList().forEach(resource -> resource.getScopeSpansList()
                            .forEach(scope -> spans.addAll(scope.getSpansList())));
                }
            }
            exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        server.start();
    }

    /** What OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Span> spans() {
        return List.copyOf(spans);
    }

    /** Every request the receiver got (method and path), whatever it was for. */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
