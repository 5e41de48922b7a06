package com.liveodds.push.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MatchIdResolverTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private Path mappingFile;
    private MatchIdResolver resolver;

    @BeforeEach
    void setUp() throws Exception {
        mappingFile = dir.resolve("mapping.csv");
        Files.writeString(mappingFile, "# comment\nfight_id,match_id\n7,match:900\n8, 901 \n");
        resolver = new MatchIdResolver(new FightMapping(mappingFile.toString()));
    }

    private String resolve(String fightMetadata) throws Exception {
        return resolver.resolve(JSON.readTree(fightMetadata));
    }

    @Test
    void externalIdComesFirst() throws Exception {
        assertThat(resolve("{\"fight_id\":\"7\",\"fight_id_sr\":\"match:41234567\",\"card_id\":\"4412\"}")).isEqualTo("match:41234567");
    }

    @Test
    void unusableExternalIdsFallThroughToTheMapping() throws Exception {
        assertThat(resolve("{\"fight_id\":\"7\",\"fight_id_sr\":\"sr:match:7\"}")).isEqualTo("match:900");
        assertThat(resolve("{\"fight_id\":\"7\",\"fight_id_sr\":null}")).isEqualTo("match:900");
        assertThat(resolve("{\"fight_id\":\"7\",\"fight_id_sr\":\"match:\"}")).isEqualTo("match:900");
        assertThat(resolve("{\"fight_id\":\"8\"}")).as("bare number in the mapping").isEqualTo("match:901");
    }

    @Test
    void fallbackPadsTheFightToThreeDigitsAndAppendsTheCorrection() throws Exception {
        assertThat(resolve("{\"fight_id\":\"5\",\"card_id\":\"4412\",\"correction\":0}")).isEqualTo("match:44120050");
        assertThat(resolve("{\"fight_id\":\"5\",\"card_id\":\"4412\"}")).as("correction defaults to 0").isEqualTo("match:44120050");
        assertThat(resolve("{\"fight_id\":\"5\",\"card_id\":\"4412\",\"correction\":\"3\"}")).isEqualTo("match:44120053");
        assertThat(resolve("{\"fight_id\":\"1234\",\"card_id\":\"1\",\"correction\":12}")).isEqualTo("match:1123412");
        assertThat(resolve("{\"fight_id\":5,\"card_id\":4412,\"correction\":1}")).as("numbers as JSON numbers").isEqualTo("match:44120051");
    }

    @Test
    void fallbackWithoutDigitsIsRejected() {
        assertThatThrownBy(() -> resolve("{\"fight_id\":\"5\"}")).isInstanceOf(UnresolvableMatchException.class).hasMessageContaining("card_id");
        assertThatThrownBy(() -> resolve("{\"fight_id\":\"f5\",\"card_id\":\"4412\"}")).isInstanceOf(UnresolvableMatchException.class);
        assertThatThrownBy(() -> resolve("{\"fight_id\":\"5\",\"card_id\":\"4412\",\"correction\":\"x\"}"))
                .isInstanceOf(UnresolvableMatchException.class).hasMessageContaining("correction");
        assertThatThrownBy(() -> resolve("{\"fight_id\":\"5\",\"card_id\":\"4412\",\"correction\":-1}")).isInstanceOf(UnresolvableMatchException.class);
    }

    @Test
    void mappingIsReReadWhenTheFileChanges() throws Exception {
        assertThat(resolve("{\"fight_id\":\"9\",\"card_id\":\"1\"}")).isEqualTo("match:10090");
        Files.writeString(mappingFile, "9,match:555\n");
        Files.setLastModifiedTime(mappingFile, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(resolve("{\"fight_id\":\"9\",\"card_id\":\"1\"}")).isEqualTo("match:555");
        assertThat(resolve("{\"fight_id\":\"7\",\"card_id\":\"1\"}")).as("entries gone from the file are gone").isEqualTo("match:10070");
    }

    @Test
    void aBadLineIsSkippedAndTheRestOfTheMappingApplies() throws Exception {
        Files.writeString(mappingFile, "\uFEFFfight_id,match_id\n7,not-a-match\n8,match:902\n9;903\n10,904\n");
        Files.setLastModifiedTime(mappingFile, FileTime.from(Instant.now().plusSeconds(5)));
        assertThat(resolve("{\"fight_id\":\"8\"}")).isEqualTo("match:902");
        assertThat(resolve("{\"fight_id\":\"10\"}")).as("after the bad lines").isEqualTo("match:904");
        assertThatThrownBy(() -> resolve("{\"fight_id\":\"7\",\"card_id\":\"1\"}")).as("no guessing for a fight whose line is bad")
                .isInstanceOf(UnresolvableMatchException.class).hasMessageContaining("mapping line of fight 7");
    }

    @Test
    void missingMappingFileMeansNoMapping() throws Exception {
        MatchIdResolver noMapping = new MatchIdResolver(new FightMapping(dir.resolve("absent.csv").toString()));
        JsonNode meta = JSON.readTree("{\"fight_id\":\"7\",\"card_id\":\"2\"}");
        assertThat(noMapping.resolve(meta)).isEqualTo("match:20070");
    }

    @Test
    void aBrokenEditKeepsTheLastGoodMappingInsteadOfSendingTheFightToTheFallbackMatch() throws Exception {
        FightMapping mapping = new FightMapping(mappingFile.toString());
        MatchIdResolver resolver = new MatchIdResolver(mapping);
        String fight900 = "{\"fight_id\":\"900\",\"card_id\":\"4412\"}";
        edit("fight_id,match_id\n900,match:9000\n", 1);
        assertThat(resolver.resolve(JSON.readTree(fight900))).isEqualTo("match:9000");

        edit("\u0000\u0001garbage;;;\n<html>\n", 2);
        assertThat(resolver.resolve(JSON.readTree(fight900))).as("garbage").isEqualTo("match:9000");
        assertThat(resolver.resolve(JSON.readTree(fight900))).isEqualTo("match:9000");
        assertThat(mapping.reloadFailureCount()).as("counted once per change").isEqualTo(1);

        edit("fight_id,match_id\n90", 3);
        assertThat(resolver.resolve(JSON.readTree(fight900))).as("truncated").isEqualTo("match:9000");
        assertThat(mapping.reloadFailureCount()).isEqualTo(2);

        Files.write(mappingFile, new byte[] {'9', '0', '0', ',', (byte) 0xE9, '\n'});
        Files.setLastModifiedTime(mappingFile, FileTime.from(Instant.now().plusSeconds(4)));
        assertThat(resolver.resolve(JSON.readTree(fight900))).as("not UTF-8").isEqualTo("match:9000");
        assertThat(mapping.reloadFailureCount()).isEqualTo(3);

        Files.delete(mappingFile);
        assertThat(resolver.resolve(JSON.readTree(fight900))).as("removed").isEqualTo("match:9000");
        assertThat(resolver.resolve(JSON.readTree(fight900))).isEqualTo("match:9000");
        assertThat(mapping.reloadFailureCount()).isEqualTo(4);

        edit("900,match:9001\n", 5);
        assertThat(resolver.resolve(JSON.readTree(fight900))).as("a good file applies again").isEqualTo("match:9001");
    }

    @Test
    void aFightWhoseLineVanishedInAnEditWithBadLinesKeepsItsMatch() throws Exception {
        FightMapping mapping = new FightMapping(mappingFile.toString());
        MatchIdResolver resolver = new MatchIdResolver(mapping);
        edit("1,match:1\n900,match:9000\n", 1);
        assertThat(resolver.resolve(JSON.readTree("{\"fight_id\":\"900\",\"card_id\":\"4412\"}"))).isEqualTo("match:9000");
        edit("1,match:1\n90", 2);
        assertThat(resolver.resolve(JSON.readTree("{\"fight_id\":\"900\",\"card_id\":\"4412\"}"))).isEqualTo("match:9000");
    }

    private void edit(String content, int secondsAhead) throws Exception {
        Files.writeString(mappingFile, content);
        Files.setLastModifiedTime(mappingFile, FileTime.from(Instant.now().plusSeconds(secondsAhead)));
    }
}
