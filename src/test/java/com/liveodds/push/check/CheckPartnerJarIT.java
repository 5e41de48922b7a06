package com.liveodds.push.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.liveodds.push.settings.StartupSettings;
import com.liveodds.push.support.RunningService;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The built jar as an operator runs it ({@code java -jar target/liveodds-push.jar ...}): the embedded sandbox passes
 * {@code check-partner}, a partner breaking a rule makes it exit 1, and usage errors exit 2 without starting the
 * service. Runs after {@code package} ({@code mvn -B verify}); alone: {@code mvn -B -o package -DskipTests
 * -Dinvoker.skip=true} then {@code mvn -B -o test -Dtest=CheckPartnerJarIT}.
 */
class CheckPartnerJarIT {

    private static final Path JAR = Path.of(System.getProperty("liveodds.jar", "target/liveodds-push.jar")).toAbsolutePath();
    private static final Duration CONTRACT_LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path home;

    @BeforeAll
    static void jarIsBuilt() {
        assertThat(JAR).as("build the jar first: mvn -B -o package -DskipTests -Dinvoker.skip=true").isRegularFile();
    }

    @Test
    void theEmbeddedSandboxPassesWithinTheContractsMinute() throws Exception {
        copyTheRunnableLayout();
        String port = Integer.toString(RunningService.freePort());
        List<String> ports = List.of("-Dcamel.server.port=" + port,
                "-Dcamel.management.port=" + RunningService.freePort());
        Process service = new ProcessBuilder(command(ports, List.of())).directory(home.toFile()).redirectErrorStream(true)
                .redirectOutput(home.resolve("service.log").toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            // the sandbox's token endpoint is up once it refuses an empty form
            await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/sandbox/oauth/token")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 400);

            Path junit = home.resolve("reports/check-partner.xml");
            Result check = run(List.of("-Dcamel.server.port=" + port),
                    List.of("check-partner", "--match", "match:1", "--junit", junit.toString()), Map.of());

            assertThat(check.exit()).as(check.out() + check.err()).isZero();
            assertThat(check.took()).isLessThan(CONTRACT_LIMIT);
            assertThat(check.out()).contains("(the embedded sandbox: no partner setting given)")
                    .doesNotContainPattern("(?m)^FAIL ")
                    .contains("PASS token-request: ", "PASS push-odds: HTTP 202", "PASS push-market_settlement: HTTP 202",
                            "PASS push-rollback_settlement: HTTP 202", "PASS push-heartbeat: HTTP 202",
                            "PASS push-without-token: ", "PASS push-forged-token: ", "PASS idempotency-key-repeated: ",
                            "PASS persistent-connections: ", "PASS latency: p50 ", "WARN tls: plain http://");
            assertThat(Files.readString(junit)).contains("failures=\"0\"");
            assertThat(check.out() + check.err() + Files.readString(junit)).doesNotContain(StartupSettings.SANDBOX_CLIENT_SECRET);
        } finally {
            service.destroy();
            service.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPartnerBreakingARuleExits1AndTheReportSaysWhich() throws Exception {
        try (ConformancePartner partner = ConformancePartner.http(ConformancePartner.Fault.FORGED_TOKEN_ACCEPTED)) {
            // the settings in the application.properties of --config-dir, the secret in the environment
            StringBuilder file = new StringBuilder();
            partner.settings().forEach((key, value) -> {
                if (!key.endsWith("client-secret")) {
                    file.append(key).append('=').append(value).append('\n');
                }
            });
            Files.createDirectories(home.resolve("conf"));
            Files.writeString(home.resolve("conf/application.properties"), file);
            Path junit = home.resolve("check.xml");
            Result check = run(List.of(), List.of("check-partner", "--match", "match:9", "--config-dir", "conf", "--junit",
                    junit.toString()), Map.of("LIVEODDS_PARTNER_CLIENT_SECRET", partner.clientSecret));

            assertThat(check.exit()).as(check.out() + check.err()).isEqualTo(1);
            assertThat(check.out()).containsPattern("(?m)^FAIL push-forged-token: a push with a forged token was accepted");
            assertThat(CheckPartnerTest.failedCases(junit)).containsExactly("push-forged-token");
            String everything = check.out() + check.err() + Files.readString(junit);
            assertThat(partner.issuedTokens()).isNotEmpty().allSatisfy(token -> assertThat(everything).doesNotContain(token));
            assertThat(everything).doesNotContain(partner.clientSecret);
        }
    }

    static Stream<Arguments> usageErrors() {
        return Stream.of(
                Arguments.of(List.of("chek-partner", "--match", "match:1"), "unknown command 'chek-partner'"),
                Arguments.of(List.of("--no-such-option"), "unknown option '--no-such-option'"),
                Arguments.of(List.of("--config-dir", ".", "-verbose"), "unknown option '-verbose'"),
                Arguments.of(List.of("check-partner"), "--match match:<id> is required"),
                Arguments.of(List.of("check-partner", "--match", "41234567"), "--match must be match:<digits>"),
                Arguments.of(List.of("check-partner", "--match", "match:1", "--secret=s3cr3t-value"), "unknown option '--secret'"));
    }

    @ParameterizedTest
    @MethodSource("usageErrors")
    void aUsageErrorExits2AndNeverStartsTheService(List<String> args, String message) throws Exception {
        Result result = run(List.of(), args, Map.of());

        assertThat(result.exit()).as(result.out() + result.err()).isEqualTo(2);
        assertThat(result.err()).contains(message).contains("usage: java -jar liveodds-push.jar");
        assertThat(result.out() + result.err()).doesNotContain("s3cr3t-value").doesNotContain("Apache Camel");
    }

    @Test
    void camelMainsOwnOptionsStillReachIt() throws Exception {
        Result help = run(List.of(), List.of("-help"), Map.of());

        assertThat(help.exit()).isZero();
        assertThat(help.out()).contains("Apache Camel Runner").contains("-duration");
    }

    private void copyTheRunnableLayout() throws IOException {
        Path repository = Path.of("").toAbsolutePath();
        Files.copy(repository.resolve("application.properties"), home.resolve("application.properties"));
        for (String folder : List.of("routes", "data")) {
            try (Stream<Path> files = Files.walk(repository.resolve(folder))) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Path target = home.resolve(repository.relativize(file).toString());
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(target);
                    } else if (!file.toString().contains("dead-letter") && !file.toString().contains("inbox")) {
                        Files.copy(file, target);
                    }
                }
            }
        }
    }

    private Result run(List<String> properties, List<String> args, Map<String, String> environment) throws Exception {
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command(properties, args)).directory(home.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(environment);
        long started = System.nanoTime();
        Process process = builder.start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("java -jar " + args + " did not end within 2 minutes: " + Files.readString(out));
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err),
                Duration.ofNanos(System.nanoTime() - started));
    }

    private static List<String> command(List<String> properties, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(properties);
        command.addAll(List.of("-jar", JAR.toString()));
        command.addAll(args);
        return command;
    }

    private record Result(int exit, String out, String err, Duration took) {
    }
}
