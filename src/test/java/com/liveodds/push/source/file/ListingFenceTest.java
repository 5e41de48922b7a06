package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListingFenceTest {

    @Test
    void aFileRenamedInAfterTheFenceWaitsForTheNextListing(@TempDir Path inbox) throws Exception {
        ListingFence fence = ListingFence.raise(inbox);
        Path file = renamedIn(inbox, "c-001.json");

        assertThat(fence.isBefore(file)).as("renamed in after the fence").isFalse();
        // a later listing's fence, once the file system's clock has moved on, has it
        await().atMost(Duration.ofSeconds(5)).until(() -> ListingFence.raise(inbox).isBefore(file));
    }

    @Test
    void theRenameIsWhatCountsNotWhenTheFileWasWritten(@TempDir Path inbox) throws Exception {
        Path written = Files.writeString(inbox.resolve(".c-001.tmp"), "{}");
        await().atMost(Duration.ofSeconds(5)).until(() -> ListingFence.raise(inbox).isBefore(written));
        ListingFence fence = ListingFence.raise(inbox);

        Path file = Files.move(written, inbox.resolve("c-001.json"), StandardCopyOption.ATOMIC_MOVE);

        assertThat(fence.isBefore(file)).as("written before the fence, renamed in after it").isFalse();
    }

    @Test
    void theFenceFolderIsTheInboxsDoneFolder(@TempDir Path inbox) throws Exception {
        ListingFence.raise(inbox);

        assertThat(inbox.resolve(InboxDone.DONE)).isDirectory();
    }

    private static Path renamedIn(Path inbox, String name) throws Exception {
        Path tmp = Files.writeString(inbox.resolve("." + name + ".tmp"), "{}");
        return Files.move(tmp, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }
}
