package com.liveodds.push.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Map;

import org.apache.camel.component.file.FileEndpoint;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The single partner's inbox: a message that ended well moves its file to .done/; one that failed leaves it. */
class InboxDoneTest {

    @TempDir
    Path inbox;
    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final InboxDone done = new InboxDone();
    private FileEndpoint endpoint;

    @BeforeEach
    void start() throws Exception {
        endpoint = camel.getEndpoint("file:" + inbox, FileEndpoint.class);
        done.prepareOnStartup(null, endpoint);
    }

    @AfterEach
    void stop() throws Exception {
        camel.close();
    }

    @Test
    void aFileWhoseMessageEndedWellMovesToDoneReplacingAnEarlierOneOfItsName() throws Exception {
        Files.writeString(inbox.resolve(".done/a.json"), "earlier");
        Path file = Files.writeString(inbox.resolve("a.json"), "{\"message\":1}");

        done.commit(null, endpoint, null, inboxFile(file));

        assertThat(file).doesNotExist();
        assertThat(inbox.resolve(".done/a.json")).hasContent("{\"message\":1}");
    }

    @Test
    void aFileWhoseMessageFailedOrWasHandedBackStaysInTheInbox() throws Exception {
        Path file = Files.writeString(inbox.resolve("b.json"), "{}");

        done.rollback(null, endpoint, null, inboxFile(file));

        assertThat(file).exists();
        assertThat(inbox.resolve(".done")).isEmptyDirectory();
    }

    @Test
    void aDoneFolderRemovedWhileTheServiceRunsIsMadeAgainAndTheFileStillMoves() throws Exception {
        Files.delete(inbox.resolve(".done"));
        Path file = Files.writeString(inbox.resolve("c.json"), "{}");

        done.commit(null, endpoint, null, inboxFile(file));

        assertThat(file).doesNotExist();
        assertThat(inbox.resolve(".done/c.json")).hasContent("{}");
    }

    @Test
    void aFileAProducerReplacedWhileItsMessageWasInHandStaysToBeReadAgain() throws Exception {
        Path file = Files.writeString(inbox.resolve("r.json"), "{\"message_id\":\"first\"}");
        GenericFile<File> listed = inboxFile(file);
        Path replacement = Files.writeString(inbox.resolve(".r.json"), "{\"message_id\":\"replacement\"}");
        Files.move(replacement, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        done.commit(null, endpoint, null, listed);

        assertThat(file).hasContent("{\"message_id\":\"replacement\"}");
        assertThat(inbox.resolve(".done")).isEmptyDirectory();
    }

    /** Touched (a sync tool, a producer's retry) is not replaced: it moves, so it is not read and pushed again and again. */
    @Test
    void aFileOnlyTouchedWhileItsMessageWasInHandMovesToDone() throws Exception {
        Path file = Files.writeString(inbox.resolve("t.json"), "{}");
        GenericFile<File> listed = inboxFile(file);
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));

        done.commit(null, endpoint, null, listed);

        assertThat(file).doesNotExist();
        assertThat(inbox.resolve(".done/t.json")).hasContent("{}");
    }

    @Test
    void aFileRemovedByHandBeforeItsEndIsNoFailure() {
        done.commit(null, endpoint, null, inboxFile(inbox.resolve("gone.json")));

        assertThat(inbox.resolve(".done")).isEmptyDirectory();
    }

    private static GenericFile<File> inboxFile(Path path) {
        GenericFile<File> file = new GenericFile<>();
        file.setFile(path.toFile());
        file.setFileNameOnly(path.getFileName().toString());
        file.setAbsoluteFilePath(path.toString());
        // as the guard records it when the file is taken
        try {
            if (Files.exists(path)) {
                file.setExtendedAttributes(Map.of(InboxGuard.FILE_KEY,
                        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }
}
