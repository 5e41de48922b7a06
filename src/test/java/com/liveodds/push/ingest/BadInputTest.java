package com.liveodds.push.ingest;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.liveodds.push.support.CapturedLogs;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 9 through the file source, over real HTTP to a WireMock partner: every bad input gets one clear outcome
 * (dead-lettered with its reason, counted, logged once), nothing of it is pushed, and the valid files around it flow.
 */
class BadInputTest {

    @TempDir
    static Path work;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_SIZE = 4 * 1024;
    private static final long ECHO_MATCH = 4004;

    private static WireMockPartner partner;
    private static RunningService service;
    private static CapturedLogs logs;
    private static Path mapping;

    @BeforeAll
    static void start() throws Exception {
        logs = CapturedLogs.all();
        partner = new WireMockPartner().acceptingEverything();
        // a partner that echoes the request's Authorization header and our client secret in its 400 answer
        partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/42/match:" + ECHO_MATCH + "/.*")).atPriority(1)
                .willReturn(aResponse().withStatus(400).withHeader("Content-Type", "application/json")
                        .withBody("{\"error\":\"bad request\",\"echo\":{\"Authorization\":\"Bearer " + WireMockPartner.TOKEN
                                + "\",\"client_secret\":\"s3cr3t-value\"}}")));
        mapping = work.resolve("mapping.csv");
        Files.writeString(mapping, "fight_id,match_id\n900,match:9000\n");
        service = RunningService.builder()
                .partner(partner.baseUrl(), partner.authUrl())
                .work(work)
                .set("liveodds.mapping.file", mapping.toString())
                .set("liveodds.source.file.max-size", "4KB")
                .set("liveodds.fixtures.auth.tokens", "fixtures-token-abc")
                .set("liveodds.admin.tokens", "admin-token-xyz")
                .start();
    }

    @AfterAll
    static void stop() {
        service.close();
        partner.close();
        logs.close();
    }

    @Test
    void aSymbolicLinkIsNeverFollowedButRemovedAndDeadLetteredByName(@TempDir Path elsewhere) throws Exception {
        Path outside = elsewhere.resolve("secret-message.json");
        Files.writeString(outside, Messages.odds("link-target-1", Messages.external("1", 1001)));
        Files.createDirectories(service.inbox());
        Path link = Files.createSymbolicLink(service.inbox().resolve("s-001.json"), outside);
        Path procLink = Files.createSymbolicLink(service.inbox().resolve("s-002.json"), Path.of("/proc/self/cmdline"));
        Path dangling = Files.createSymbolicLink(service.inbox().resolve("s-003.json"), outside.resolveSibling("nothing-here"));
        Path folder = Files.createDirectories(elsewhere.resolve("folder"));
        Path folderLink = Files.createSymbolicLink(service.inbox().resolve("s-000.json"), folder);
        service.drop("s-004.json", Messages.odds("after-links", Messages.external("1", 1001)));

        awaitPush("after-links");
        await().atMost(Duration.ofSeconds(5)).until(() -> letterFor("s-003.json").isPresent());
        for (String name : List.of("s-000.json", "s-001.json", "s-002.json", "s-003.json")) {
            JsonNode letter = letterFor(name).orElseThrow();
            assertThat(letter.path("reason_code").asText()).isEqualTo("not_regular_file");
            assertThat(letter.path("reason").asText()).contains("symbolic link");
            assertThat(letter.has("body")).as("no content of the target").isFalse();
        }
        assertThat(Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(procLink, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(dangling, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(folderLink, java.nio.file.LinkOption.NOFOLLOW_LINKS)).as("a link to a folder, never descended").isFalse();
        assertThat(folder).isDirectory();
        assertThat(outside).as("the target is left alone").exists();
        assertThat(pushesOf("link-target-1")).isEmpty();
        assertThat(allDeadLetterText()).doesNotContain("link-target-1");
    }

    @Test
    void onlyNamesEndingInLowerCaseJsonAreRead() throws Exception {
        service.drop("c-001.JSON", Messages.odds("upper-case-name", Messages.external("6", 1006)));
        service.drop("c-002.json", Messages.odds("after-upper-case", Messages.external("6", 1006)));

        awaitPush("after-upper-case");
        assertThat(pushesOf("upper-case-name")).isEmpty();
        assertThat(service.inbox().resolve("c-001.JSON")).as("not a message: left alone").exists();
    }

    @Test
    void aNameWithABackslashIsKeptWholeInTheDeadLetterStoreAndTheInboxGoesOn() throws Exception {
        String body = Messages.odds("backslash-name", Messages.external("8", 1008));
        service.drop("w\\001.json", body);
        service.drop("w-002.json", Messages.odds("after-backslash", Messages.external("8", 1008)));

        awaitPush("after-backslash");
        JsonNode letter = awaitLetterFor("w\\001.json");
        assertThat(letter.path("reason_code").asText()).isEqualTo("bad_file_name");
        assertThat(Files.readString(service.deadLetters().resolve(letter.path("kept_as").asText()))).isEqualTo(body);
        assertThat(pushesOf("backslash-name")).isEmpty();
        assertThat(service.inbox().resolve("w\\001.json")).doesNotExist();
    }

    @Test
    void aNameNotInTheFileNameEncodingIsNamedInAWarningOnceAndTheInboxGoesOn() throws Exception {
        Files.createDirectories(service.inbox());
        // the byte 0xFF is no character in UTF-8 (nor in ASCII): Java lists the name with a replacement character
        Process touch = new ProcessBuilder("sh", "-c", "printf '{}' > \"$1/$(printf 'v-\\377.json')\"", "sh",
                service.inbox().toString()).start();
        assertThat(touch.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(touch.exitValue()).isZero();
        service.drop("v-002.json", Messages.odds("after-bad-name", Messages.external("9", 1009)));

        awaitPush("after-bad-name");
        service.drop("v-003.json", Messages.odds("after-bad-name-2", Messages.external("9", 1009)));
        awaitPush("after-bad-name-2");
        assertThat(logs.messages()).filteredOn(m -> m.contains("v-\uFFFD.json") && m.contains("cannot hold")).hasSize(1);
    }

    @Test
    void aFifoIsNeverOpenedButRemovedAndDeadLettered() throws Exception {
        Files.createDirectories(service.inbox());
        Path fifo = service.inbox().resolve("f-001.json");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        service.drop("f-002.json", Messages.odds("after-fifo", Messages.external("2", 1002)));

        // a reader opening the FIFO would block for ever: the file after it arriving proves nobody did
        awaitPush("after-fifo");
        await().atMost(Duration.ofSeconds(5)).until(() -> letterFor("f-001.json").isPresent());
        assertThat(letterFor("f-001.json").orElseThrow().path("reason").asText()).contains("not a regular file");
        assertThat(Files.exists(fifo, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    void aFileLargerThanTheLimitIsMovedWholeIntoTheDeadLetterStoreUnread() throws Exception {
        String big = Messages.odds("too-big-1", Messages.external("3", 1003)).replace("\"markets\":[",
                "\"padding\":\"" + "x".repeat(MAX_SIZE) + "\",\"markets\":[");
        service.drop("l-001.json", big);
        service.drop("l-002.json", Messages.odds("after-big", Messages.external("3", 1003)));

        awaitPush("after-big");
        JsonNode letter = awaitLetterFor("l-001.json");
        assertThat(letter.path("reason_code").asText()).isEqualTo("too_large");
        assertThat(letter.path("size").asLong()).isEqualTo(big.length());
        assertThat(letter.has("body")).isFalse();
        Path kept = service.deadLetters().resolve(letter.path("kept_as").asText());
        assertThat(Files.readString(kept)).isEqualTo(big);
        assertThat(pushesOf("too-big-1")).isEmpty();
        assertThat(service.inbox().resolve("l-001.json")).doesNotExist();
    }

    @Test
    void idsThatDifferOnlyOutsideAsciiAreRejectedInsteadOfCollidingInTheIdempotencyKey() throws Exception {
        service.drop("i-001.json", Messages.odds("odds-\u4e2d", Messages.external("4", 1004)));
        service.drop("i-002.json", Messages.odds("odds-\u65e5", Messages.external("4", 1004)));
        service.drop("i-003.json", Messages.odds("odds-plain-ascii_~!", Messages.external("4", 1004)));

        LoggedRequest ok = awaitPush("odds-plain-ascii_~!");
        assertThat(ok.getHeader("Idempotency-Key")).isEqualTo("odds-plain-ascii_~!");
        await().atMost(Duration.ofSeconds(5)).until(() -> letterFor("i-002.json").isPresent() || letterWithId("odds-\u65e5").isPresent());
        assertThat(letterWithId("odds-\u4e2d").orElseThrow().path("reason_code").asText()).isEqualTo("bad_message_id");
        assertThat(letterWithId("odds-\u65e5").orElseThrow().path("reason_code").asText()).isEqualTo("bad_message_id");
        assertThat(partner.pushes()).noneMatch(r -> r.getHeader("Idempotency-Key").startsWith("odds-?"));
    }

    @Test
    void twoObjectsInOneFileAreOneRejectionAndNeitherIsDelivered() throws Exception {
        String first = Messages.odds("two-a", Messages.external("5", 1005));
        String second = Messages.odds("two-b", Messages.external("5", 1005));
        service.drop("t-001.json", first + "\n" + second);
        service.drop("t-002.json", first.replace("two-a", "two-c") + " garbage");
        service.drop("t-003.json", Messages.odds("after-two", Messages.external("5", 1005)));

        awaitPush("after-two");
        String garbage = first.replace("two-a", "two-c") + " garbage";
        await().atMost(Duration.ofSeconds(5)).until(() -> letterWithBody(garbage).isPresent() && letterWithBody(first + "\n" + second).isPresent());
        JsonNode letter = letterWithBody(first + "\n" + second).orElseThrow();
        assertThat(letter.path("reason_code").asText()).isEqualTo("trailing_content");
        assertThat(letter.path("file_name").asText()).as("the inbox file it came in").isEqualTo("t-001.json");
        assertThat(letter.path("body").asText()).as("kept verbatim").isEqualTo(first + "\n" + second);
        assertThat(letterWithBody(garbage).orElseThrow().path("reason_code").asText()).isEqualTo("trailing_content");
        assertThat(pushesOf("two-a")).isEmpty();
        assertThat(pushesOf("two-b")).isEmpty();
        assertThat(pushesOf("two-c")).isEmpty();
    }

    @Test
    void aFileInAnotherEncodingIsDeadLetteredOnceWithItsBytesInBase64() throws Exception {
        String text = Messages.odds("latin-1", "{\"fight_id\":\"6\",\"fight_id_sr\":\"match:1006\",\"note\":\"Jos\u00e9\"}");
        byte[] latin1 = text.getBytes(StandardCharsets.ISO_8859_1);
        byte[] utf16 = Messages.odds("utf-16", Messages.external("6", 1006)).getBytes(StandardCharsets.UTF_16);
        dropBytes("e-001.json", latin1);
        dropBytes("e-002.json", utf16);
        service.drop("e-003.json", Messages.odds("after-encodings", Messages.external("6", 1006)));

        awaitPush("after-encodings");
        await().atMost(Duration.ofSeconds(5)).until(() -> Files.exists(service.done().resolve("e-002.json")));
        List<JsonNode> letters = lettersWithBase64(latin1);
        assertThat(letters).as("one dead letter, no retry loop").hasSize(1);
        assertThat(letters.get(0).path("reason_code").asText()).isEqualTo("not_utf8");
        assertThat(lettersWithBase64(utf16)).hasSize(1);
        assertThat(pushesOf("latin-1")).isEmpty();
        assertThat(pushesOf("utf-16")).isEmpty();
        assertThat(service.management("/observe/metrics").body())
                .containsPattern("liveodds_messages_rejected_total\\{[^}]*reason=\"not_utf8\"[^}]*} [2-9]");
    }

    @Test
    void aRepeatedKeyIsRejectedAndTheBodyKeptVerbatim() throws Exception {
        String body = Messages.odds("dup-1", Messages.external("7", 1007)).replace("\"message_type\":\"odds\",",
                "\"message_type\":\"odds\",\"message_type\":\"market_settlement\",");
        service.drop("d-001.json", body);
        service.drop("d-002.json", Messages.odds("after-dup", Messages.external("7", 1007)));

        awaitPush("after-dup");
        await().atMost(Duration.ofSeconds(5)).until(() -> letterWithBody(body).isPresent());
        assertThat(letterWithBody(body).orElseThrow().path("reason_code").asText()).isEqualTo("duplicate_key");
        assertThat(pushesOf("dup-1")).isEmpty();
    }

    @Test
    void lineBreaksInUpstreamValuesCannotForgeLogLines() throws Exception {
        service.drop("g-001.json", Messages.odds("forge\\nINFO forged line", Messages.external("8", 1008)));
        service.drop("g-002.json", Messages.odds("forge-2", Messages.external("8", 1008))
                .replace("\"message_type\":\"odds\"", "\"message_type\":\"odds\\r\\nWARN forged\\u2028line\""));
        service.drop("g-003.json", Messages.odds("after-forgery", Messages.external("8", 1008)));

        awaitPush("after-forgery");
        await().atMost(Duration.ofSeconds(5)).until(() -> letterWithId("forge-2").isPresent());
        assertThat(logs.messages()).noneMatch(m -> m.contains("\n") || m.contains("\r") || m.contains("\u2028"));
        assertThat(logs.messages()).anyMatch(m -> m.contains("forged") && m.contains("\\u000A"));
    }

    @Test
    void aFileWhoseNameHasControlCharactersIsReadLikeAnyOtherAndItsNameCannotForgeALogLine() throws Exception {
        service.drop("h-001\nvalid.json", Messages.odds("named-with-newline", Messages.external("9", 1009)));
        service.drop("h-002\r\u001b[31m12:00:00.000 ERROR forged.json", "not json h-002");

        awaitPush("named-with-newline");
        await().atMost(Duration.ofSeconds(5)).until(() -> service.deadLetterEntries().stream()
                .anyMatch(l -> l.path("body").asText().equals("not json h-002")));
        assertThat(logs.messages()).noneMatch(m -> m.contains("\n") || m.contains("\r") || m.contains("\u001b"));
    }

    @Test
    void aBrokenMappingEditDoesNotSendTheFightToTheFallbackMatch() throws Exception {
        service.drop("m-001.json", Messages.odds("mapped-1", "{\"fight_id\":\"900\",\"card_id\":\"4412\"}"));
        assertThat(awaitPush("mapped-1").getUrl()).endsWith("/match:9000/odds");
        Path saved = mapping.resolveSibling("mapping.saved");
        Files.copy(mapping, saved, StandardCopyOption.REPLACE_EXISTING);
        try {
            Files.writeString(mapping, "fight_id,match_id\n90");
            Files.setLastModifiedTime(mapping, FileTime.from(Instant.now().plusSeconds(3)));
            service.drop("m-002.json", Messages.odds("mapped-2", "{\"fight_id\":\"900\",\"card_id\":\"4412\"}"));
            assertThat(awaitPush("mapped-2").getUrl()).endsWith("/match:9000/odds");
            Files.delete(mapping);
            service.drop("m-003.json", Messages.odds("mapped-3", "{\"fight_id\":\"900\",\"card_id\":\"4412\"}"));
            assertThat(awaitPush("mapped-3").getUrl()).endsWith("/match:9000/odds");
            assertThat(service.management("/observe/metrics").body()).containsPattern("liveodds_mapping_reload_failures_total(\\{[^}]*})? [2-9]");
        } finally {
            Files.move(saved, mapping, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void aPartnerEchoingTheTokenAndSecretLeavesNeitherInTheDeadLetter() throws Exception {
        service.drop("p-001.json", Messages.odds("echoed-1", Messages.external("9", ECHO_MATCH)));

        await().atMost(Duration.ofSeconds(30)).until(() -> letterWithId("echoed-1").isPresent());
        JsonNode letter = letterWithId("echoed-1").orElseThrow();
        assertThat(letter.path("last_status").asInt()).isEqualTo(400);
        assertThat(letter.path("last_response_body").asText()).contains("Bearer ***").contains("bad request");
        assertThat(allDeadLetterText()).doesNotContain(WireMockPartner.TOKEN, "s3cr3t-value", "fixtures-token-abc", "admin-token-xyz");
    }

    private static void dropBytes(String name, byte[] bytes) throws IOException {
        Files.createDirectories(service.inbox());
        Path tmp = service.inbox().resolve("." + name + ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, service.inbox().resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private static LoggedRequest awaitPush(String messageId) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !pushesOf(messageId).isEmpty());
        return pushesOf(messageId).get(0);
    }

    private static List<LoggedRequest> pushesOf(String messageId) {
        return partner.pushes().stream().filter(r -> messageId.equals(r.getHeader("Idempotency-Key"))).toList();
    }

    private static JsonNode awaitLetterFor(String fileName) {
        return await().atMost(Duration.ofSeconds(5)).until(() -> letterFor(fileName), Optional::isPresent).orElseThrow();
    }

    private static Optional<JsonNode> letterFor(String fileName) throws IOException {
        return service.deadLetterEntries().stream().filter(l -> fileName.equals(l.path("file_name").asText())).findFirst();
    }

    private static Optional<JsonNode> letterWithId(String messageId) throws IOException {
        return service.deadLetterEntries().stream().filter(l -> messageId.equals(l.path("message_id").asText())
                || messageId.equals(l.path("body").path("message_id").asText())).findFirst();
    }

    private static Optional<JsonNode> letterWithBody(String body) throws IOException {
        return service.deadLetterEntries().stream().filter(l -> l.path("body").isTextual() && body.equals(l.path("body").asText())).findFirst();
    }

    private static List<JsonNode> lettersWithBase64(byte[] bytes) throws IOException {
        String encoded = Base64.getEncoder().encodeToString(bytes);
        return service.deadLetterEntries().stream().filter(l -> "base64".equals(l.path("body_encoding").asText())
                && encoded.equals(l.path("body").asText())).toList();
    }

    private static String allDeadLetterText() throws IOException {
        StringBuilder all = new StringBuilder();
        try (var files = Files.list(service.deadLetters())) {
            for (Path file : files.toList()) {
                if (Files.isRegularFile(file)) {
                    all.append(Files.readString(file, StandardCharsets.ISO_8859_1));
                }
            }
        }
        return all.toString();
    }
}
