package com.liveodds.push.ops;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import com.liveodds.push.support.WireMockPartner;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * {@code liveodds.log.format=json}: every line a JSON object, lines about a message carry its match and message id, and
 * with tracing on its trace and span.
 */
class JsonLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theServiceStartedWithTheEnvironmentVariableWritesOnlyJsonLines(@TempDir Path work) throws Exception {
        Files.createDirectories(work.resolve("inbox"));
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything()) {
            partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).atPriority(1)
                    .withHeader("Idempotency-Key", equalTo("refused-7")).willReturn(aResponse().withStatus(422)));
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
            Path log = work.resolve("service.log");
            try (ServiceProcess service = ServiceProcess.start(settings, Map.of("LIVEODDS_LOG_FORMAT", "json"), log)) {
                RunningService.drop(work.resolve("inbox"), "a.json", Messages.odds("refused-7", Messages.external("7", 4242)));
                // an odds message without odds_type: rejected at ingest, with its message_id known
                RunningService.drop(work.resolve("inbox"), "b.json", Messages.message("odds", "no-type-8", Messages.external("8", 4243)));
                await().atMost(Duration.ofSeconds(60)).until(() -> service.log().contains("no-type-8") && service.log().contains("refused-7"));
                service.terminate(Duration.ofSeconds(20));
            }
            List<JsonNode> lines = new ArrayList<>();
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.startsWith("WARNING: ") || line.isBlank()) {
                    continue; // the JVM's own stderr notices (java.lang.System::load and the like), not the service's log
                }
                JsonNode json = JSON.readTree(line);
                assertThat(json.isObject()).as("a JSON object per line: %s", line).isTrue();
                assertThat(json.path("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
                assertThat(json.has("level") && json.has("logger") && json.has("thread") && json.has("message")).as(line).isTrue();
                lines.add(json);
            }
            assertThat(lines).hasSizeGreaterThan(10);
            JsonNode deadLetter = lines.stream().filter(l -> l.path("message").asText().startsWith("Dead letter")
                    && "refused-7".equals(l.path("message_id").asText())).findFirst().orElseThrow();
            assertThat(deadLetter.path("match_id").asText()).isEqualTo("match:4242");
            JsonNode rejected = lines.stream().filter(l -> l.path("message").asText().startsWith("Dead letter")
                    && "no-type-8".equals(l.path("message_id").asText())).findFirst().orElseThrow();
            assertThat(rejected.has("match_id")).as("not resolved for a rejected message").isFalse();
        }
    }

    @Test
    void aLineKeepsItsMessageIdsAndItsStackTraceOnOneLine() throws Exception {
        LogEncoder encoder = jsonEncoder();
        Logger logger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("liveodds.test");
        String line;
        try (var ids = MessageLogContext.of("match:1", "m-1\nforged line")) {
            LoggingEvent event = new LoggingEvent("x", logger, Level.WARN, "push {} failed\nsecond line",
                    new IllegalStateException("boom"), new Object[] {"m-1"});
            line = new String(encoder.encode(event), StandardCharsets.UTF_8);
        }
        assertThat(MDC.get(MessageLogContext.MESSAGE_ID)).as("closed: the ids are gone").isNull();
        assertThat(line).endsWith("\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n");
        JsonNode json = JSON.readTree(line);
        assertThat(Instant.parse(json.path("time").asText())).isNotNull();
        assertThat(json.path("level").asText()).isEqualTo("WARN");
        assertThat(json.path("logger").asText()).isEqualTo("liveodds.test");
        assertThat(json.path("message").asText()).isEqualTo("push m-1 failed\nsecond line");
        assertThat(json.path("match_id").asText()).isEqualTo("match:1");
        assertThat(json.path("message_id").asText()).isEqualTo("m-1\nforged line");
        assertThat(json.path("error").asText()).contains("IllegalStateException: boom").contains("at com.liveodds");
    }

    @Test
    void aLineAboutATracedMessageNamesItsTraceAndSpan() throws Exception {
        LogEncoder encoder = jsonEncoder();
        Logger logger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("liveodds.test");
        Exchange traced = new DefaultExchange(new DefaultCamelContext());
        // what tracing keeps on the exchange of a message (liveodds.tracing.enabled)
        traced.setProperty(TraceIds.PROPERTY, new TraceIds("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"));
        Exchange untraced = new DefaultExchange(new DefaultCamelContext());
        String tracedLine;
        String untracedLine;
        try (var ids = MessageLogContext.of(traced, "match:1", "m-1")) {
            tracedLine = new String(encoder.encode(new LoggingEvent("x", logger, Level.INFO, "Delivered", null, null)),
                    StandardCharsets.UTF_8);
            try (var inner = MessageLogContext.of(untraced, "match:2", "m-2")) {
                untracedLine = new String(encoder.encode(new LoggingEvent("x", logger, Level.INFO, "Delivered", null, null)),
                        StandardCharsets.UTF_8);
            }
            assertThat(MDC.get(MessageLogContext.TRACE_ID)).as("the outer context again").isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        }
        assertThat(MDC.get(MessageLogContext.TRACE_ID)).isNull();
        JsonNode json = JSON.readTree(tracedLine);
        assertThat(json.path("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(json.path("span_id").asText()).isEqualTo("00f067aa0ba902b7");
        assertThat(json.path("message_id").asText()).isEqualTo("m-1");
        JsonNode plain = JSON.readTree(untracedLine);
        assertThat(plain.has("trace_id") || plain.has("span_id")).as("tracing off: no trace fields").isFalse();
        assertThat(plain.path("message_id").asText()).isEqualTo("m-2");
    }

    private static LogEncoder jsonEncoder() {
        LogEncoder encoder = new LogEncoder();
        encoder.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
        encoder.setFormat("json");
        encoder.setPattern("%msg%n");
        encoder.start();
        return encoder;
    }

    @Test
    void textStaysTheDefaultAndTheSettingIsReadFromTheConfigurationFolder(@TempDir Path home) throws Exception {
        System.setProperty("liveodds.home", home.toString());
        try {
            assertThat(new LogFormat().getPropertyValue()).isEqualTo(System.getenv("LIVEODDS_LOG_FORMAT") == null ? "text" : "json");
            Files.writeString(home.resolve("application.properties"), "liveodds.log.format = json\n");
            assertThat(new LogFormat().getPropertyValue()).isEqualTo("json");
            System.setProperty("liveodds.log.format", "text");
            assertThat(new LogFormat().getPropertyValue()).as("a system property wins").isEqualTo("text");
        } finally {
            System.clearProperty("liveodds.home");
            System.clearProperty("liveodds.log.format");
        }
    }
}
