package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.camel.component.file.FileEndpoint;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The single partner's inbox: a message that ended well moves its file to .done/; one that failed leaves it. */
class InboxDoneTest {

    @Test
    void aFileWhoseMessageEndedWellMovesToDoneReplacingAnEarlierOneOfItsName(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            InboxDone done = new InboxDone();
            done.prepareOnStartup(null, endpoint);
            Files.writeString(inbox.resolve(".done/a.json"), "earlier");
            Path file = Files.writeString(inbox.resolve("a.json"), "{\"message\":1}");

            done.commit(null, endpoint, null, inboxFile(file));

            assertThat(file).doesNotExist();
            assertThat(inbox.resolve(".done/a.json")).hasContent("{\"message\":1}");
        }
    }

    @Test
    void aFileWhoseMessageFailedOrWasHandedBackStaysInTheInbox(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            InboxDone done = new InboxDone();
            done.prepareOnStartup(null, endpoint);
            Path file = Files.write(inbox.resolve("b.json"), "{}".getBytes(StandardCharsets.UTF_8));

            done.rollback(null, endpoint, null, inboxFile(file));

            assertThat(file).exists();
            assertThat(inbox.resolve(".done")).isEmptyDirectory();
        }
    }

    @Test
    void aDoneFolderRemovedWhileTheServiceRunsIsMadeAgainAndTheFileStillMoves(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            InboxDone done = new InboxDone();
            done.prepareOnStartup(null, endpoint);
            Files.delete(inbox.resolve(".done"));
            Path file = Files.writeString(inbox.resolve("c.json"), "{}");

            done.commit(null, endpoint, null, inboxFile(file));

            assertThat(file).doesNotExist();
            assertThat(inbox.resolve(".done/c.json")).hasContent("{}");
        }
    }

    @Test
    void aFileRemovedByHandBeforeItsEndIsNoFailure(@TempDir Path inbox) throws Exception {
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            FileEndpoint endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
            InboxDone done = new InboxDone();
            done.prepareOnStartup(null, endpoint);

            done.commit(null, endpoint, null, inboxFile(inbox.resolve("gone.json")));

            assertThat(inbox.resolve(".done")).isEmptyDirectory();
        }
    }

    private static GenericFile<File> inboxFile(Path path) {
        GenericFile<File> file = new GenericFile<>();
        file.setFile(path.toFile());
        file.setFileNameOnly(path.getFileName().toString());
        file.setAbsoluteFilePath(path.toString());
        return file;
    }
}
