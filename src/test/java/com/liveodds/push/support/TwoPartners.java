package com.liveodds.push.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Partners a (id 101) and b (id 202) of {@code liveodds.partners}, each a real receiver on loopback with fixtures
 * tokens of its own, and the service's logs: closed, it checks that no token ever reached a log line.
 */
public final class TwoPartners implements AutoCloseable {

    public final LoopbackPartner a = new LoopbackPartner();
    public final LoopbackPartner b = new LoopbackPartner();
    private final CapturedLogs logs = CapturedLogs.all();
    private final String tokenA;
    private final String tokenB;

    public TwoPartners(String tokenA, String tokenB) throws IOException {
        this.tokenA = tokenA;
        this.tokenB = tokenB;
    }

    /** A service of both partners in {@code work}, stopping at once (shutdown time-out 1 s); more settings may follow. */
    public RunningService.Builder service(Path work) {
        return RunningService.builder()
                .partner("a", "101", a.baseUrl(), a.authUrl())
                .partner("b", "202", b.baseUrl(), b.authUrl())
                .set("liveodds.partners.a.fixtures-tokens", tokenA)
                .set("liveodds.partners.b.fixtures-tokens", tokenB)
                .set("camel.main.shutdown-timeout", "1")
                .work(work);
    }

    /** Closes the receivers and checks the logs, with these secrets besides the partners' tokens. */
    public void close(String... secrets) {
        a.close();
        b.close();
        logs.close();
        List<String> never = new java.util.ArrayList<>(List.of(tokenA, tokenB));
        never.addAll(List.of(secrets));
        assertThat(logs.messages()).isNotEmpty().noneMatch(m -> never.stream().anyMatch(m::contains));
    }

    @Override
    public void close() {
        close(new String[0]);
    }
}
