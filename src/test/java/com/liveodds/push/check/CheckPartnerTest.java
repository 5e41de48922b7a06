package com.liveodds.push.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code check-partner} in-process against partner stand-ins on 127.0.0.1, one per broken rule: exactly the check of
 * that rule fails (or warns), the exit status and the JUnit report say so, and no secret reaches the output.
 */
class CheckPartnerTest {

    private static final String MATCH = "match:4711";
    private static final String STORE_PASSWORD = java.util.UUID.randomUUID() + "-store-password";

    @TempDir
    static Path dir;

    @BeforeAll
    static void makeCertificates() throws Exception {
        // self-signed: one valid for 127.0.0.1, one for another host; a client certificate; both sides trust them
        keytool("-genkeypair", "-alias", "good", "-dname", "CN=127.0.0.1", "-ext", "san=ip:127.0.0.1", "-keystore", "good.p12");
        keytool("-genkeypair", "-alias", "other", "-dname", "CN=partner.example", "-ext", "san=dns:partner.example",
                "-keystore", "other.p12");
        keytool("-genkeypair", "-alias", "client", "-dname", "CN=liveodds-push", "-keystore", "client.p12");
        for (String name : List.of("good", "other", "client")) {
            keytool("-exportcert", "-alias", name, "-keystore", name + ".p12", "-file", name + ".cer");
        }
        for (String name : List.of("good", "other")) {
            keytool("-importcert", "-noprompt", "-alias", name, "-file", name + ".cer", "-keystore", "trust.p12");
        }
        keytool("-importcert", "-noprompt", "-alias", "client", "-file", "client.cer", "-keystore", "server-trust.p12");
    }

    @Test
    void aPartnerKeepingEveryRulePasses() throws Exception {
        try (ConformancePartner partner = ConformancePartner.http(ConformancePartner.Fault.NONE)) {
            Run run = check(partner.settings(), "--match", MATCH, "--junit", dir.resolve("none.xml").toString());

            assertThat(run.status()).as(run.out()).isZero();
            assertThat(run.verdicts()).containsOnlyKeys(expectedChecks(false));
            assertThat(run.named(Verdict.FAIL)).isEmpty();
            // plain http is the one warning
            assertThat(run.named(Verdict.WARN)).containsExactly("tls");
            assertThat(run.out()).contains("PASS latency: p50 ").contains("over 20 heartbeats");
            // and what the partner does itself once live: booking and recovery on its own path
            assertThat(run.out()).contains("PUT  /v1/liveodds/42/booking/match:<id>", "POST /v1/liveodds/42/recovery");
            assertThat(failedCases(dir.resolve("none.xml"))).isEmpty();
            // every message type, settlements included, and only to the test match
            assertThat(partner.pushPaths()).allMatch(p -> p.startsWith("/v1/liveodds/42/" + MATCH + "/"));
            assertThat(partner.pushPaths().stream().map(p -> p.substring(p.lastIndexOf('/') + 1)).distinct())
                    .containsExactlyInAnyOrderElementsOf(PartnerChecks.MESSAGE_TYPES);
            assertNoSecret(run, partner, dir.resolve("none.xml"));
        }
    }

    @ParameterizedTest
    @EnumSource(value = ConformancePartner.Fault.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aPartnerBreakingOneRuleFailsOrWarnsExactlyItsCheck(ConformancePartner.Fault fault) throws Exception {
        Path junit = dir.resolve(fault + ".xml");
        try (ConformancePartner partner = ConformancePartner.http(fault)) {
            Run run = check(partner.settings(), "--match", MATCH, "--junit", junit.toString(), "--pushes", "5");

            Set<String> fails = names(fault.fails);
            Set<String> warns = names(fault.warns);
            warns.add("tls");
            assertThat(run.named(Verdict.FAIL)).as(run.out()).isEqualTo(fails);
            assertThat(run.named(Verdict.WARN)).as(run.out()).isEqualTo(warns);
            assertThat(run.named(Verdict.SKIP)).isEmpty();
            assertThat(run.status()).as(run.out()).isEqualTo(fails.isEmpty() ? 0 : 1);
            assertThat(failedCases(junit)).isEqualTo(fails);
            assertThat(partner.issuedTokens()).isNotEmpty();
            assertNoSecret(run, partner, junit);
        }
    }

    @Test
    void aCertificateForAnotherHostFailsTheTlsCheckAndNothingIsSent() throws Exception {
        Path junit = dir.resolve("other-host.xml");
        try (ConformancePartner partner = ConformancePartner.https(serverContext("other.p12", false), false)) {
            Map<String, String> settings = partner.settings();
            trustTheTestCertificates(settings);
            Run run = check(settings, "--match", MATCH, "--junit", junit.toString());

            assertThat(run.named(Verdict.FAIL)).as(run.out()).containsExactly("tls");
            assertThat(run.out()).containsPattern("FAIL tls: certificate of 127\\.0\\.0\\.1:\\d+ not accepted: .*127\\.0\\.0\\.1");
            assertThat(run.named(Verdict.SKIP)).hasSize(expectedChecks(false).size() - 1);
            assertThat(run.status()).isEqualTo(1);
            assertThat(failedCases(junit)).containsExactly("tls");
            assertThat(Files.readString(junit)).contains("skipped=\"" + (expectedChecks(false).size() - 1) + "\"");
            assertThat(partner.pushPaths()).isEmpty();
            assertNoSecret(run, partner, junit);
        }
    }

    @Test
    void aWrongTrustStorePasswordFailsTheTlsCheckNamingTheSettingNotThePassword() throws Exception {
        try (ConformancePartner partner = ConformancePartner.https(serverContext("good.p12", false), false)) {
            Map<String, String> settings = partner.settings();
            trustTheTestCertificates(settings);
            String wrong = java.util.UUID.randomUUID() + "-wrong-password";
            settings.put("liveodds.partner.tls.trust-store-password", wrong);
            Run run = check(settings, "--match", MATCH);

            assertThat(run.named(Verdict.FAIL)).as(run.out()).containsExactly("tls");
            assertThat(run.out()).contains("FAIL tls: ").contains("liveodds.partner.tls.trust-store-password");
            assertThat(run.out() + run.err()).doesNotContain(wrong.substring(0, 12));
            assertThat(run.status()).isEqualTo(1);
        }
    }

    @Test
    void mutualTlsPassesWithTheClientCertificatePresented() throws Exception {
        try (ConformancePartner partner = ConformancePartner.https(serverContext("good.p12", true), true)) {
            Run run = check(withClientCertificate(partner), "--match", MATCH);

            assertThat(run.status()).as(run.out()).isZero();
            assertThat(run.verdicts()).containsOnlyKeys(expectedChecks(true));
            assertThat(run.named(Verdict.PASS)).isEqualTo(new TreeSet<>(expectedChecks(true)));
            assertThat(run.out()).contains("PASS tls: certificate valid for 127.0.0.1 (TLS");
            assertNoSecret(run, partner, null);
        }
    }

    @Test
    void aClientCertificateThePartnerDoesNotAskForIsAFailure() throws Exception {
        try (ConformancePartner partner = ConformancePartner.https(serverContext("good.p12", false), false)) {
            Run run = check(withClientCertificate(partner), "--match", MATCH);

            assertThat(run.named(Verdict.FAIL)).as(run.out()).containsExactly("tls-client-certificate");
            assertThat(run.status()).isEqualTo(1);
        }
    }

    @Test
    void aPartnerOfLiveoddsPartnersIsCheckedByItsOwnKeys() throws Exception {
        try (ConformancePartner partner = ConformancePartner.http(ConformancePartner.Fault.NONE)) {
            Map<String, String> settings = new HashMap<>();
            settings.put("liveodds.partners", "alpha, beta-2");
            partner.settings().forEach((key, value) -> settings.put(key.replace("liveodds.partner.", "liveodds.partners.beta-2."), value));
            Run run = check(settings, "check-partner", "--partner", "beta-2", "--match", MATCH, "--pushes", "3");

            assertThat(run.status()).as(run.out()).isZero();
            assertThat(run.out()).contains("check-partner: partner beta-2 (id 42), base-url " + partner.url());
            assertThat(partner.pushPaths()).isNotEmpty();

            Run unknown = check(settings, "--partner", "gamma", "--match", MATCH);
            assertThat(unknown.status()).isEqualTo(2);
            assertThat(unknown.err()).contains("--partner gamma: not one of liveodds.partners (alpha, beta-2)");
            settings.remove("liveodds.partners.beta-2.client-secret");
            Run incomplete = check(settings, "--partner", "beta-2", "--match", MATCH);
            assertThat(incomplete.status()).isEqualTo(2);
            assertThat(incomplete.err()).contains("missing required setting liveodds.partners.beta-2.client-secret")
                    .contains("LIVEODDS_PARTNERS_BETA_2_CLIENT_SECRET");
        }
    }

    @Test
    void withNoPartnerSettingItChecksTheFirstOfTheEmbeddedSandboxPartners() {
        // the embedded default runs sandbox-a and sandbox-b (contract 16): the check takes sandbox-a, partner 1
        PartnerUnderCheck sandbox = PartnerUnderCheck.single(key -> null);
        assertThat(sandbox.sandbox()).isTrue();
        assertThat(sandbox).hasToString("partner 1");
        assertThat(sandbox.clientId()).isEqualTo(com.liveodds.push.settings.StartupSettings.SANDBOX_CLIENT_ID);
        assertThat(sandbox.baseUrl()).isEqualTo("http://127.0.0.1:8080/sandbox");
        assertThat(sandbox.audience()).isEqualTo("http://127.0.0.1:8080/sandbox");

        PartnerUnderCheck b = PartnerUnderCheck.ofPartners("sandbox-b", key -> null);
        assertThat(b.sandbox()).isTrue();
        assertThat(b).hasToString("partner sandbox-b (id 2)");
        assertThat(b.clientId()).isEqualTo("sandbox-client-b");
    }

    @Test
    void usageErrorsExit2AndNeverEchoAnOptionsValue() {
        Map<String, String> none = Map.of();
        assertThat(check(none).status()).isEqualTo(2);
        assertThat(check(none, "--match").status()).isEqualTo(2);
        Run notAMatch = check(none, "--match", "4711");
        assertThat(notAMatch.status()).isEqualTo(2);
        assertThat(notAMatch.err()).contains("--match must be match:<digits>, not '4711'");
        assertThat(check(none, "--match", "match:12a").status()).isEqualTo(2);
        assertThat(check(none, "--match", MATCH, "--pushes", "0").status()).isEqualTo(2);
        Run typo = check(none, "--match", MATCH, "--client-secret=hunter2-very-secret");
        assertThat(typo.status()).isEqualTo(2);
        assertThat(typo.err()).contains("unknown option '--client-secret'").doesNotContain("hunter2");
        assertThat(check(none, "--match", MATCH, "extra").status()).isEqualTo(2);
        Run help = check(none, "--help");
        assertThat(help.status()).isZero();
        assertThat(help.out()).contains("usage: java -jar liveodds-push.jar check-partner --match match:<id>");
    }

    private static List<String> expectedChecks(boolean clientCertificate) {
        List<String> checks = new ArrayList<>(List.of("tls"));
        if (clientCertificate) {
            checks.add("tls-client-certificate");
        }
        checks.addAll(List.of("token-request", "token-type", "token-expires-in", "token-wrong-secret"));
        PartnerChecks.MESSAGE_TYPES.forEach(type -> checks.add("push-" + type));
        checks.addAll(List.of("push-without-token", "push-forged-token", "idempotency-key-repeated", "persistent-connections",
                "latency"));
        return checks;
    }

    private static Map<String, String> withClientCertificate(ConformancePartner partner) {
        Map<String, String> settings = partner.settings();
        trustTheTestCertificates(settings);
        settings.put("liveodds.partner.tls.key-store", dir.resolve("client.p12").toString());
        settings.put("liveodds.partner.tls.key-store-password", STORE_PASSWORD);
        return settings;
    }

    private static void trustTheTestCertificates(Map<String, String> settings) {
        settings.put("liveodds.partner.tls.trust-store", dir.resolve("trust.p12").toString());
        settings.put("liveodds.partner.tls.trust-store-password", STORE_PASSWORD);
    }

    private static void assertNoSecret(Run run, ConformancePartner partner, Path junit) throws IOException {
        List<String> secrets = new ArrayList<>(partner.issuedTokens());
        secrets.add(partner.clientSecret);
        secrets.add(STORE_PASSWORD);
        String report = junit == null ? "" : Files.readString(junit);
        for (String secret : secrets) {
            // not even a part of one (an answer quoted in part must be masked before it is cut)
            assertThat(run.out() + run.err() + report).doesNotContain(secret.substring(0, 12));
        }
    }

    private static Set<String> names(String list) {
        return list == null ? new TreeSet<>() : new TreeSet<>(Arrays.asList(list.split(",")));
    }

    /** The test cases of the JUnit report that hold a failure. */
    static Set<String> failedCases(Path junit) throws IOException {
        Matcher failed = Pattern.compile("<testcase [^>]*name=\"([^\"]+)\"[^>]*>\\s*<failure ").matcher(Files.readString(junit));
        Set<String> names = new TreeSet<>();
        while (failed.find()) {
            names.add(failed.group(1));
        }
        return names;
    }

    private static Run check(Map<String, String> settings, String... args) {
        List<String> arguments = new ArrayList<>(Arrays.asList(args));
        if (!arguments.isEmpty() && arguments.get(0).equals(CheckPartnerCommand.NAME)) {
            arguments.remove(0);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CheckPartnerCommand.run(arguments, settings::get, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static SSLContext serverContext(String keyStore, boolean trustClient) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(KeyStore.getInstance(dir.resolve(keyStore).toFile(), STORE_PASSWORD.toCharArray()), STORE_PASSWORD.toCharArray());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trustClient ? KeyStore.getInstance(dir.resolve("server-trust.p12").toFile(), STORE_PASSWORD.toCharArray()) : null);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        return context;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-J-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(args));
        if (args[0].equals("-genkeypair")) {
            command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2"));
        }
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", STORE_PASSWORD));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("keytool %s: %s", args[0], output).isZero();
    }

    /** One run of the command: its exit status and what it printed. */
    record Run(int status, String out, String err) {

        /** Check name to verdict, from the printed lines. */
        Map<String, Verdict> verdicts() {
            Map<String, Verdict> verdicts = new HashMap<>();
            Matcher line = Pattern.compile("(?m)^(PASS|WARN|FAIL|SKIP) ([a-z_-]+): ").matcher(out);
            while (line.find()) {
                verdicts.put(line.group(2), Verdict.valueOf(line.group(1)));
            }
            return verdicts;
        }

        Set<String> named(Verdict verdict) {
            Set<String> names = new TreeSet<>();
            verdicts().forEach((name, v) -> {
                if (v == verdict) {
                    names.add(name);
                }
            });
            return names;
        }
    }
}
