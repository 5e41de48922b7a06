package com.liveodds.push.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * An inbox entry as its listing looked at it, once, without following a link: what the fence, the guard and Camel's
 * file headers ask of it is answered from that look. Camel alone asks the file system five times for a file it reads
 * (a folder or not, then its length and time twice); a producer renames a whole file in and never writes it after
 * that (contract 11), so the listing's answers are the file's. A link is asked about again where Camel follows it.
 */
final class ListedFile extends File {

    private static final String ATTRIBUTES = "unix:ctime,size,lastModifiedTime,lastAccessTime,creationTime,fileKey,"
            + "isDirectory,isRegularFile,isSymbolicLink,isOther";

    private final transient Attributes attributes;

    private ListedFile(String path, Attributes attributes) {
        super(path);
        this.attributes = attributes;
    }

    /** The entry of that name in the folder, looked at now (one lstat). */
    static ListedFile at(File folder, String name) throws IOException {
        File plain = new File(folder, name);
        Map<String, Object> read = Files.readAttributes(plain.toPath(), ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        return new ListedFile(plain.getPath(), new Attributes(read));
    }

    /** Its attributes as the listing saw them, the link itself for a link. */
    BasicFileAttributes attributes() {
        return attributes;
    }

    /** When its status last changed: for an entry renamed in, when it was renamed in. */
    FileTime changed() {
        return attributes.changed;
    }

    @Override
    public boolean isDirectory() {
        return attributes.isSymbolicLink() ? super.isDirectory() : attributes.isDirectory();
    }

    @Override
    public boolean isFile() {
        return attributes.isSymbolicLink() ? super.isFile() : attributes.isRegularFile();
    }

    @Override
    public long length() {
        return attributes.isSymbolicLink() ? super.length() : attributes.size();
    }

    @Override
    public long lastModified() {
        return attributes.isSymbolicLink() ? super.lastModified() : attributes.lastModifiedTime().toMillis();
    }

    /** The unix view's answers of one lstat. */
    private record Attributes(Map<String, Object> read, FileTime changed) implements BasicFileAttributes {

        Attributes(Map<String, Object> read) {
            this(read, (FileTime) read.get("ctime"));
        }

        @Override
        public FileTime lastModifiedTime() {
            return (FileTime) read.get("lastModifiedTime");
        }

        @Override
        public FileTime lastAccessTime() {
            return (FileTime) read.get("lastAccessTime");
        }

        @Override
        public FileTime creationTime() {
            return (FileTime) read.get("creationTime");
        }

        @Override
        public boolean isRegularFile() {
            return (Boolean) read.get("isRegularFile");
        }

        @Override
        public boolean isDirectory() {
            return (Boolean) read.get("isDirectory");
        }

        @Override
        public boolean isSymbolicLink() {
            return (Boolean) read.get("isSymbolicLink");
        }

        @Override
        public boolean isOther() {
            return (Boolean) read.get("isOther");
        }

        @Override
        public long size() {
            return (Long) read.get("size");
        }

        @Override
        public Object fileKey() {
            return read.get("fileKey");
        }
    }
}
