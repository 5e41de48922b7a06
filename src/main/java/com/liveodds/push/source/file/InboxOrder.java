package com.liveodds.push.source.file;

import java.util.Comparator;

import org.apache.camel.component.file.GenericFile;

/**
 * File-name order, which producers use as send order. A plain comparator: the file component's {@code sortBy}
 * evaluates a Simple expression for both files of every comparison, which on a large inbox costs more than the poll.
 */
public class InboxOrder implements Comparator<GenericFile<?>> {

    @Override
    public int compare(GenericFile<?> a, GenericFile<?> b) {
        return a.getFileNameOnly().compareTo(b.getFileNameOnly());
    }
}
