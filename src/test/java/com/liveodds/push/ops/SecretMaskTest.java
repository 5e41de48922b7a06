package com.liveodds.push.ops;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SecretMaskTest {

    private final SecretMask mask = new SecretMask();

    SecretMaskTest() {
        mask.setClientSecret("S3CRET-client");
        mask.register("TOK-abc-secret-1");
    }

    @Test
    void everyWholeSecretIsMasked() {
        assertThat(mask.mask("{\"e\":\"TOK-abc-secret-1 S3CRET-client\"}")).isEqualTo("{\"e\":\"*** ***\"}");
    }

    @Test
    void aSecretCutOffAtTheEndOfAKeptAnswerIsMaskedToo() {
        // a partner echoing the secret past the 4 KiB kept of its answer: the cut leaves its first characters
        String echoed = "TOK-abc-secret-1 S3CRET-client ".repeat(200);
        String cut = echoed.substring(0, 4096);
        String masked = mask.mask(cut);
        assertThat(masked).doesNotContain("S3CRE").doesNotContain("TOK-a").endsWith(SecretMask.MASK);
        for (int n = 4; n < "S3CRET-client".length(); n++) {
            assertThat(mask.mask("answer: " + "S3CRET-client".substring(0, n))).isEqualTo("answer: ***");
        }
    }

    @Test
    void anOrdinaryEndingIsLeftAlone() {
        assertThat(mask.mask("HTTP 422: bad market S3C")).isEqualTo("HTTP 422: bad market S3C");
        assertThat(mask.mask("{\"error\":\"invalid\"}")).isEqualTo("{\"error\":\"invalid\"}");
    }
}
