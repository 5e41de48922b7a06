package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/** The listing's choice of a batch: the first names in order among the candidates, without sorting the folder. */
class InboxFileComponentTest {

    private static final String[] SCRAMBLED = scrambled(1000);

    @Test
    void aBatchIsTheSmallestNamesInOrder() {
        assertThat(InboxFileComponent.InboxConsumer.firstNames(SCRAMBLED, null, 5, name -> true))
                .containsExactly("f-0000.json", "f-0001.json", "f-0002.json", "f-0003.json", "f-0004.json");
    }

    @Test
    void theNextBatchStartsAfterTheLastNameOfThePreviousOne() {
        assertThat(InboxFileComponent.InboxConsumer.firstNames(SCRAMBLED, "f-0997.json", 5, name -> true))
                .containsExactly("f-0998.json", "f-0999.json");
    }

    @Test
    void namesThatAreNotCandidatesLeaveRoomForTheNextOnes() {
        assertThat(InboxFileComponent.InboxConsumer.firstNames(SCRAMBLED, null, 3, name -> !name.equals("f-0001.json")))
                .containsExactly("f-0000.json", "f-0002.json", "f-0003.json");
    }

    private static String[] scrambled(int count) {
        List<String> names = new ArrayList<>(IntStream.range(0, count).mapToObj(i -> String.format("f-%04d.json", i)).toList());
        Collections.shuffle(names, new Random(7));
        return names.toArray(new String[0]);
    }
}
