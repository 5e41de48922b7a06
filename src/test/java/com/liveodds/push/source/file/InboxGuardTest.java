package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import com.liveodds.push.deadletter.DeadLetterStore;
import com.liveodds.push.heartbeat.UpstreamLiveness;
import com.liveodds.push.ingest.Rejections;
import org.apache.camel.component.file.FileConsumer;
import org.apache.camel.component.file.GenericFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single partner's inbox listing and a push ending at the same time: a file in hand is passed over by its name, so
 * that a listing never takes a file its push has just moved to .done/ (it would fail to read it, log an error and roll
 * back a file that is gone).
 */
class InboxGuardTest {

    @TempDir
    Path work;

    @Test
    void aFileInHandIsPassedOverByItsNameBeforeAnythingLooksAtIt() throws Exception {
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        Path file = Files.writeString(inbox.resolve("m-1.json"), "{}");
        InboxInProgress inHand = new InboxInProgress(10);
        InboxGuard guard = guard(inHand);
        inHand.add(file.toAbsolutePath().toString());

        assertThat(guard.accept("m-1.json")).as("in hand: skipped by name").isFalse();

        // its push ends: Camel moves it, then lets go of it
        InboxDone.moveToDone(file);
        inHand.remove(file.toAbsolutePath().toString());

        assertThat(guard.accept("m-1.json")).as("no longer in hand: looked at").isNull();
        assertThat(guard.accept(entry(inbox, "m-1.json"))).as("gone from the inbox: not taken").isFalse();
        assertThat(guard.accept(entry(inbox, "m-2.json"))).as("never there").isFalse();
    }

    @Test
    void aFileNotInHandIsTakenWhenItIsARegularFileWithinTheLimit() throws Exception {
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        Files.writeString(inbox.resolve("m-1.json"), "{}");
        InboxGuard guard = guard(new InboxInProgress(10));

        assertThat(guard.accept("m-1.json")).isNull();
        assertThat(guard.accept(entry(inbox, "m-1.json"))).isTrue();
    }

    /**
     * A name Java cannot turn into a path (under a locale without UTF-8, any name outside ASCII; here a NUL, which no
     * locale maps) is passed over, not thrown out of the listing, where it would end every poll before the files after it.
     */
    @Test
    void anEntryWhoseNameCannotBeAPathIsPassedOverAndTheListingGoesOn() throws Exception {
        Path inbox = Files.createDirectories(work.resolve("inbox"));
        Files.writeString(inbox.resolve("m-2.json"), "{}");
        InboxGuard guard = guard(new InboxInProgress(10));

        File unaddressable = new File(inbox.toFile(), "m-1\u0000.json");
        assertThat(guard.accept(FileConsumer.asGenericFile(inbox.toString(), unaddressable, null, false))).isFalse();
        assertThat(guard.accept(entry(inbox, "m-2.json"))).isTrue();
    }

    private InboxGuard guard(InboxInProgress inHand) {
        return new InboxGuard(new DeadLetterStore(work.resolve("dead").toString()), new Rejections(), new UpstreamLiveness(),
                inHand);
    }

    private static GenericFile<File> entry(Path inbox, String name) {
        File file = inbox.resolve(name).toFile();
        return FileConsumer.asGenericFile(inbox.toString(), file, null, false);
    }
}
