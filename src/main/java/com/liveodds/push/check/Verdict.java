package com.liveodds.push.check;

/** How one check of {@code check-partner} came out; only {@link #FAIL} makes the command exit 1. */
public enum Verdict {
    PASS,
    WARN,
    FAIL,
    /** Not run because a check it depends on failed (no TLS, no token): the failure is reported there, once. */
    SKIP
}
