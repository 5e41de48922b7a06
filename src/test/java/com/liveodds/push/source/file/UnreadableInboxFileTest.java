package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.ServiceProcess;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An inbox file the service may not read (a producer's umask, another user's file) is moved whole into the dead-letter
 * store with a record of why, instead of failing at every poll while the later messages of its match go first.
 */
class UnreadableInboxFileTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aFileTheServiceMayNotReadIsKeptInTheDeadLetterStoreAndTheInboxGoesOn(@TempDir Path work) throws Exception {
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        Path deadLetters = work.resolve("dead-letter");
        String unreadable = Messages.odds("unreadable-1", Messages.external("5", 5005));
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything()) {
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
            try (ServiceProcess service = ServiceProcess.startUnprivileged(settings, work.resolve("service.log"))) {
                service.awaitLive(Integer.parseInt(settings.get("camel.management.port")), Duration.ofSeconds(90));
                Path hidden = inbox.resolve(".u-001.json.tmp");
                Files.writeString(hidden, unreadable, StandardCharsets.UTF_8);
                Files.setPosixFilePermissions(hidden, PosixFilePermissions.fromString("---------"));
                Files.move(hidden, inbox.resolve("u-001.json"), StandardCopyOption.ATOMIC_MOVE);
                RunningService.drop(inbox, "u-002.json",
                        Messages.odds("after-unreadable", Messages.external("5", 5005)));

                await().atMost(Duration.ofSeconds(30)).until(() -> !pushesOf(partner, "after-unreadable").isEmpty());
                JsonNode letter = await().atMost(Duration.ofSeconds(10)).until(() -> letterFor(deadLetters, "u-001.json"), Optional::isPresent).orElseThrow();
                assertThat(letter.path("reason_code").asText()).isEqualTo("unreadable");
                assertThat(letter.path("reason").asText()).contains("permission");
                assertThat(letter.path("size").asLong()).isEqualTo(unreadable.length());
                Path kept = deadLetters.resolve(letter.path("kept_as").asText());
                Files.setPosixFilePermissions(kept, PosixFilePermissions.fromString("rw-------"));
                assertThat(Files.readString(kept)).as("the bytes kept whole, to be put back once readable").isEqualTo(unreadable);
                assertThat(inbox.resolve("u-001.json")).doesNotExist();
                assertThat(pushesOf(partner, "unreadable-1")).isEmpty();
                assertThat(service.log()).as("refused once, not failed at every poll").doesNotContain("AccessDeniedException")
                        .doesNotContain("Permission denied");
            }
        }
    }

    private static List<?> pushesOf(WireMockPartner partner, String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).toList();
    }

    private static Optional<JsonNode> letterFor(Path deadLetters, String fileName) throws Exception {
        if (!Files.isDirectory(deadLetters)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(deadLetters)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json")).toList()) {
                JsonNode letter = JSON.readTree(file.toFile());
                if (fileName.equals(letter.path("file_name").asText())) {
                    return Optional.of(letter);
                }
            }
        }
        return Optional.empty();
    }
}
