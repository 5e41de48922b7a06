package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ListingFenceTest {

    @Test
    void aFileRenamedInDuringTheListingWaitsForTheNextListing(@TempDir Path inbox) throws Exception {
        ListingFence fence = ListingFence.begin(inbox);
        Path file = renamedIn(inbox, "c-001.json");
        fence.end();

        assertThat(fence.listedWhole(listed(file))).as("renamed in during the listing").isFalse();
        // a later listing, once the file system's clock has moved on, has it
        await().atMost(Duration.ofSeconds(5)).until(() -> listing(inbox).listedWhole(listed(file)));
    }

    @Test
    void theRenameIsWhatCountsNotWhenTheFileWasWritten(@TempDir Path inbox) throws Exception {
        Path written = Files.writeString(inbox.resolve(".c-001.tmp"), "{}");
        await().atMost(Duration.ofSeconds(5)).until(() -> listing(inbox).listedWhole(listed(written)));
        ListingFence fence = ListingFence.begin(inbox);

        Path file = Files.move(written, inbox.resolve("c-001.json"), StandardCopyOption.ATOMIC_MOVE);
        fence.end();

        assertThat(fence.listedWhole(listed(file))).as("written before the listing, renamed in during it").isFalse();
    }

    @Test
    void theFenceLeavesNothingInTheInboxOrItsDoneFolder(@TempDir Path inbox) throws Exception {
        listing(inbox);

        assertThat(inbox.resolve(InboxDone.DONE)).isDirectory();
        try (Stream<Path> done = Files.list(inbox.resolve(InboxDone.DONE))) {
            assertThat(done).isEmpty();
        }
    }

    private static ListingFence listing(Path inbox) throws Exception {
        ListingFence fence = ListingFence.begin(inbox);
        fence.end();
        return fence;
    }

    /** The entry as a listing looks at it. */
    private static ListedFile listed(Path entry) throws Exception {
        return ListedFile.at(entry.getParent().toFile(), entry.getFileName().toString());
    }

    private static Path renamedIn(Path inbox, String name) throws Exception {
        Path tmp = Files.writeString(inbox.resolve("." + name + ".tmp"), "{}");
        return Files.move(tmp, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }
}
