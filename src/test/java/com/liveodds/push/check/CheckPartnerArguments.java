package com.liveodds.push.check;

import java.util.List;

/** check-partner's own reading of its command line, for tests outside this package (DocsTest). */
public final class CheckPartnerArguments {

    private CheckPartnerArguments() {
    }

    /** Throws IllegalArgumentException, with the line check-partner prints, when it would exit 2 on these arguments. */
    public static void parse(List<String> arguments) {
        CheckPartnerCommand.Options.parse(arguments);
    }
}
