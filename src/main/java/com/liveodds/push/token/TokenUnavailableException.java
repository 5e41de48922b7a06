package com.liveodds.push.token;

/** No valid partner token can be had right now; pushes wait and retry. Never carries a secret. */
public class TokenUnavailableException extends RuntimeException {

    public TokenUnavailableException(String message) {
        super(message);
    }

    public TokenUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
