package com.liveodds.push.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import com.liveodds.push.delivery.RetryPolicy.Action;
import com.liveodds.push.partner.PartnerAnswer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofSeconds(60));
    private final Instant start = Instant.parse("2026-11-21T20:00:00Z");

    @ParameterizedTest
    @ValueSource(ints = {200, 201, 202, 204})
    void anyTwoHundredIsDelivered(int status) {
        assertThat(policy.decide(answer(status, null, null), 1, start, start, false).action()).isEqualTo(Action.DELIVERED);
    }

    @Test
    void firstUnauthorizedRenewsTheTokenAtOnceThenBacksOff() {
        RetryPolicy.Decision first = policy.decide(answer(401, null, null), 1, start, start, false);
        assertThat(first.action()).isEqualTo(Action.RENEW_TOKEN);
        assertThat(first.delay()).isZero();
        RetryPolicy.Decision second = policy.decide(answer(401, null, null), 2, start, start, true);
        assertThat(second.action()).isEqualTo(Action.RENEW_TOKEN);
        assertThat(second.delay()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 408, 429, 500, 502, 503, 504})
    void transientFailuresRetryWithBackoff(int status) {
        RetryPolicy.Decision d = policy.decide(answer(status, null, null), 1, start, start, false);
        assertThat(d.action()).isEqualTo(Action.RETRY);
        assertThat(d.delay()).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 403, 404, 409, 410, 413, 422})
    void otherStatusesDeadLetterAtOnce(int status) {
        RetryPolicy.Decision d = policy.decide(answer(status, null, null), 1, start, start, false);
        assertThat(d.action()).isEqualTo(Action.DEAD_LETTER);
        assertThat(d.reason()).contains("HTTP " + status);
    }

    @Test
    void backoffGrowsExponentiallyWithJitterUpToTheCap() {
        for (int attempt = 1; attempt <= 12; attempt++) {
            long ceiling = Math.min(100L << (attempt - 1), 5000);
            Duration d = policy.backoff(attempt);
            assertThat(d.toMillis()).isBetween(ceiling / 2, ceiling);
        }
    }

    @Test
    void retryAfterInSecondsOrAsHttpDateIsHonoured() {
        assertThat(policy.decide(answer(429, "7", null), 1, start, start, false).delay()).isEqualTo(Duration.ofSeconds(7));
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(start.plusSeconds(12).atOffset(ZoneOffset.UTC));
        assertThat(policy.decide(answer(503, date, null), 1, start, start, false).delay()).isEqualTo(Duration.ofSeconds(12));
        assertThat(policy.decide(answer(503, "garbage", null), 1, start, start, false).delay()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void aWaitIsCutToTheBudgetLeftSoTheLastAttemptIsAtItsEnd() {
        RetryPolicy.Decision last = policy.decide(answer(503, "5", null), 30, start, start.plusSeconds(59), false);
        assertThat(last.action()).isEqualTo(Action.RETRY);
        assertThat(last.delay()).isEqualTo(Duration.ofSeconds(1));

        RetryPolicy.Decision d = policy.decide(answer(503, "5", null), 31, start, start.plusSeconds(60), false);
        assertThat(d.action()).isEqualTo(Action.DEAD_LETTER);
        assertThat(d.reason()).contains("retry budget");
    }

    @ParameterizedTest
    @ValueSource(strings = {"99999999999999999999", "9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT"})
    void anAbsurdlyLongRetryAfterIsCappedAtTheBudgetLeft(String retryAfter) {
        RetryPolicy.Decision d = policy.decide(answer(429, retryAfter, null), 1, start, start.plusSeconds(20), false);
        assertThat(d.action()).isEqualTo(Action.RETRY);
        assertThat(d.delay()).isEqualTo(Duration.ofSeconds(40));
    }

    @ParameterizedTest
    @ValueSource(strings = {"-5", "1.5", "garbage", "", "  ", "Thu, 01 Jan 1970 00:00:00 GMT", "Mon, 99 Foo 2026 99:99:99 GMT",
            "12abc"})
    void aRetryAfterInThePastOrUnreadableNeverRaisesAndFallsBackToTheBackoff(String retryAfter) {
        RetryPolicy.Decision d = policy.decide(answer(503, retryAfter, null), 1, start, start, false);
        assertThat(d.action()).isEqualTo(Action.RETRY);
        assertThat(d.delay()).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    }

    @Test
    void anHttpDateInThePastMeansNow() {
        assertThat(RetryPolicy.parseRetryAfter("Thu, 01 Jan 1970 00:00:00 GMT", start)).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 302, 303, 307, 308})
    void aRedirectIsDeadLetteredAtOnceNamingItsLocation(int status) {
        RetryPolicy.Decision d = policy.decide(answer(status, null, "https://elsewhere.example/v1/odds"), 1, start, start, false);
        assertThat(d.action()).isEqualTo(Action.DEAD_LETTER);
        assertThat(d.reason()).isEqualTo("HTTP " + status + " redirect to https://elsewhere.example/v1/odds is not followed");
    }

    @Test
    void aLocationCannotForgeALogLine() {
        RetryPolicy.Decision d = policy.decide(answer(302, null, "https://x.example/\nERROR forged"), 1, start, start, false);
        assertThat(d.reason()).doesNotContain("\n").contains("https://x.example/?ERROR forged");
    }

    @Test
    void noAnswerIsRetried() {
        PartnerAnswer timeout = new PartnerAnswer(0, null, null, null, "no complete answer within 10000 ms", true);
        assertThat(policy.decide(timeout, 1, start, start, false).action()).isEqualTo(Action.RETRY);
    }

    private static PartnerAnswer answer(int status, String retryAfter, String location) {
        return new PartnerAnswer(status, retryAfter, location, null, null, false);
    }
}
