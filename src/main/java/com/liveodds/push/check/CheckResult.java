package com.liveodds.push.check;

import java.time.Duration;

/**
 * One line of the report: {@code PASS|WARN|FAIL <check>: <detail>}, the detail naming the interface rule.
 *
 * @param check   a stable name (also the JUnit test case name)
 * @param verdict the outcome
 * @param detail  what was seen and which rule it is held against; never a secret
 * @param took    how long the check ran
 */
public record CheckResult(String check, Verdict verdict, String detail, Duration took) {

    public String line() {
        return verdict + " " + check + ": " + detail;
    }
}
