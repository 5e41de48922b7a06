package com.liveodds.push.status;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import com.liveodds.push.partner.PartnerPauses;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.Messages;
import com.liveodds.push.support.RunningService;
import com.liveodds.push.support.WireMockPartner;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The status page in a real headless Chromium against the real service: an operator logs in with the admin token,
 * sees the stuck match first among a dozen live ones, replays a dead letter from its button and sees it delivered.
 * Needs Debian's chromium and chromium-driver (installed by .ci/run); without them the test is skipped, except on
 * CI ({@code CI=true}) where it fails.
 */
class StatusPageBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final String ADMIN_TOKEN = "ops-admin-token-7f3a";
    private static final long STUCK = 9001;

    @TempDir
    Path profile;

    @Test
    void operatorSeesTheStuckMatchFirstAndReplaysADeadLetter() throws Exception {
        requireBrowser();
        List<Long> live = java.util.stream.LongStream.rangeClosed(STUCK + 1, STUCK + 13).boxed().toList();
        long rejectedMatch = live.get(12);
        try (WireMockPartner partner = new WireMockPartner().acceptingEverything()) {
            partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/42/match:" + STUCK + "/.*")).atPriority(1)
                    .willReturn(aResponse().withStatus(503).withBody("{\"error\":\"maintenance\"}")));
            StubMapping refuse = partner.server().stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).atPriority(1)
                    .withHeader("Idempotency-Key", equalTo("bad-0001"))
                    .willReturn(aResponse().withStatus(422).withBody("{\"error\":\"unknown market\"}")));
            try (RunningService service = RunningService.builder().partner(partner.baseUrl(), partner.authUrl())
                    .set("liveodds.admin.tokens", ADMIN_TOKEN).start()) {
                for (int i = 0; i < 12; i++) {
                    service.drop(String.format("a%02d.json", i), Messages.odds("ok-" + i, Messages.external("f" + i, live.get(i))));
                }
                service.drop("b01.json", Messages.odds("stuck-1", Messages.external("stuck", STUCK)));
                service.drop("b02.json", Messages.odds("stuck-2", Messages.external("stuck", STUCK)));
                service.drop("c01.json", Messages.odds("bad-0001", Messages.external("bad", rejectedMatch)));
                await().atMost(Duration.ofSeconds(20)).until(() -> partner.pushes("odds").size() >= 14 && service.deadLetterCount() == 1);

                WebDriver browser = browser(profile);
                try {
                    browser.manage().window().setSize(new Dimension(1440, 900));
                    browser.get("http://127.0.0.1:" + service.serverPort() + "/status");
                    browser.findElement(By.id("token")).sendKeys(ADMIN_TOKEN);
                    browser.findElement(By.id("login-button")).click();

                    await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).until(() ->
                            rows(browser, "matches").size() == 13 && "in retry".equals(cells(rows(browser, "matches").get(0)).get(2)));
                    // the page redraws its tables every 2 s: a row read across a redraw is read again
                    await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).untilAsserted(() -> {
                        WebElement first = rows(browser, "matches").get(0);
                        assertThat(first.getAttribute("data-match")).isEqualTo("match:" + STUCK);
                        assertThat(cells(first).get(1)).isEqualTo("2");
                        assertThat(first.getAttribute("class")).contains("retry");
                        assertThat(browser.findElement(By.id("partner-detail")).getText()).doesNotContain(ADMIN_TOKEN);
                        List<WebElement> letters = rows(browser, "dead-letters");
                        assertThat(letters).hasSize(1);
                        assertThat(cells(letters.get(0)).get(1)).isEqualTo("match:" + rejectedMatch);
                    });
                    Files.write(Path.of("target", "status-page.png"), ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));

                    partner.server().removeStub(refuse);
                    // the page redraws every 2 s: a button found before a redraw is gone, so find it and click at once
                    await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).until(() -> {
                        browser.findElement(By.cssSelector("#dead-letters tbody tr button.replay")).click();
                        return true;
                    });
                    await().atMost(Duration.ofSeconds(15)).until(() ->
                            browser.findElement(By.id("replay-result")).getText().contains("delivered")
                                    && rows(browser, "dead-letters").isEmpty());
                    assertThat(partner.pushes("odds")).filteredOn(r -> "bad-0001".equals(r.getHeader("Idempotency-Key"))).hasSize(2);
                    assertThat(service.deadLetterCount()).isZero();
                    Files.write(Path.of("target", "status-page-after-replay.png"), ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
                } finally {
                    browser.quit();
                }
            }
        }
    }

    /**
     * With two partners (contract 16) the page shows each one: b, which refuses every push, is DOWN in the partners table
     * while the header's partner stays UP (a takes pushes); each live match and dead letter names its partner, and b's dead
     * letter, replayed from its button once b is back, goes to b alone; a recovery a asks for shows with its partner,
     * state and counts; b is paused and resumed from its row's button.
     */
    @Test
    void operatorSeesEachPartnerAndReplaysADeadLetterToItsPartner() throws Exception {
        requireBrowser();
        try (LoopbackPartner a = new LoopbackPartner(); LoopbackPartner b = new LoopbackPartner().failing(path -> true);
             RunningService service = RunningService.builder()
                     .partner("a", "101", a.baseUrl(), a.authUrl())
                     .partner("b", "202", b.baseUrl(), b.authUrl())
                     .set("liveodds.admin.tokens", ADMIN_TOKEN)
                     .set("liveodds.partners.a.fixtures-tokens", "page-a-token")
                     .set("liveodds.partner.down-after", "1s")
                     .set("liveodds.delivery.max-elapsed", "2s")
                     .start()) {
            service.drop("a01.json", Messages.odds("both-1", Messages.external("1", 8101)));
            await().atMost(Duration.ofSeconds(20)).until(() -> service.deadLetterCount() == 1);

            WebDriver browser = browser(profile);
            try {
                browser.manage().window().setSize(new Dimension(1440, 900));
                browser.get("http://127.0.0.1:" + service.serverPort() + "/status");
                browser.findElement(By.id("token")).sendKeys(ADMIN_TOKEN);
                browser.findElement(By.id("login-button")).click();

                await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).until(() ->
                        rows(browser, "partners").size() == 2 && "DOWN".equals(cells(rows(browser, "partners").get(1)).get(2)));
                // the page redraws its tables every 2 s: a row read across a redraw is read again
                await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).untilAsserted(() -> {
                    List<WebElement> partners = rows(browser, "partners");
                    assertThat(cells(partners.get(0))).startsWith("a", "101", "UP");
                    assertThat(cells(partners.get(1))).startsWith("b", "202", "DOWN");
                    assertThat(partners.get(1).getAttribute("class")).contains("retry");
                    assertThat(browser.findElement(By.id("partner-state")).getText()).isEqualTo("UP");
                    assertThat(browser.findElement(By.id("partner-detail")).getText()).isEqualTo("b: HTTP 503");
                    // live at a, where it was delivered; not (yet) at b
                    assertThat(rows(browser, "matches")).singleElement()
                            .satisfies(r -> assertThat(cells(r)).startsWith("a", "match:8101"));
                    List<WebElement> letters = rows(browser, "dead-letters");
                    assertThat(letters).hasSize(1);
                    assertThat(cells(letters.get(0)).get(4)).isEqualTo("b");
                });
                Files.write(Path.of("target", "status-page-partners.png"), ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));

                b.failing(path -> false);
                await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).until(() -> {
                    browser.findElement(By.cssSelector("#dead-letters tbody tr button.replay")).click();
                    return true;
                });
                await().atMost(Duration.ofSeconds(15)).until(() ->
                        browser.findElement(By.id("replay-result")).getText().contains("delivered") && rows(browser, "dead-letters").isEmpty());
                assertThat(b.arrivals()).filteredOn(r -> "both-1".equals(r.messageId()) && r.status() == 202).hasSize(1);
                assertThat(a.arrivals()).filteredOn(r -> "both-1".equals(r.messageId())).as("a had it already: no second push").hasSize(1);

                // a asks for its match again (contract 20): the recovery shows with its partner, state and counts
                HttpResponse<String> asked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://127.0.0.1:" + service.serverPort() + "/v1/liveodds/101/recovery"))
                        .header("Authorization", "Bearer page-a-token")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"match\":\"match:8101\",\"request_id\":\"page-1\"}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
                await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).until(() ->
                        rows(browser, "recoveries").size() == 1 && "complete".equals(cells(rows(browser, "recoveries").get(0)).get(3)));
                await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).untilAsserted(() ->
                        assertThat(cells(rows(browser, "recoveries").get(0))).containsSequence("page-1", "a", "complete", "1", "1", "1", "0"));

                // b paused from its row's button (contract 24): the row says PAUSED, the service has it paused; its
                // Resume button undoes it
                PartnerPauses pauses = service.bean("liveoddsPartnerPauses", PartnerPauses.class);
                clickPauseButtonOf(browser, 1);
                await().atMost(Duration.ofSeconds(15)).ignoreException(StaleElementReferenceException.class).until(() ->
                        "PAUSED".equals(cells(rows(browser, "partners").get(1)).get(2)));
                assertThat(pauses.isPaused("b")).isTrue();
                assertThat(pauses.isPaused("a")).isFalse();
                assertThat(browser.findElement(By.id("partners-summary")).getText()).endsWith("1 paused");
                Files.write(Path.of("target", "status-page-paused.png"), ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES));
                clickPauseButtonOf(browser, 1);
                await().atMost(Duration.ofSeconds(15)).ignoreException(StaleElementReferenceException.class).until(() ->
                        !"PAUSED".equals(cells(rows(browser, "partners").get(1)).get(2)));
                assertThat(pauses.isPaused("b")).isFalse();
            } finally {
                browser.quit();
            }
        }
    }

    /** The Pause or Resume button of the partners table's row, clicked as soon as it is found (the page redraws). */
    private static void clickPauseButtonOf(WebDriver browser, int row) {
        await().atMost(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).until(() -> {
            rows(browser, "partners").get(row).findElement(By.cssSelector("button.pause")).click();
            return true;
        });
    }

    private static List<WebElement> rows(WebDriver browser, String table) {
        return browser.findElements(By.cssSelector("#" + table + " tbody tr"));
    }

    private static List<String> cells(WebElement row) {
        return row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    }

    static void requireBrowser() {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI needs " + CHROMIUM + " and " + CHROMEDRIVER + " (Debian chromium, chromium-driver; .ci/run installs them)");
        }
        Assumptions.assumeTrue(present, "no " + CHROMIUM + " / " + CHROMEDRIVER + " on this machine");
    }

    /** Both paths given, so Selenium Manager never looks for a browser or a driver on the network. */
    static WebDriver browser(Path profile) throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }
}
