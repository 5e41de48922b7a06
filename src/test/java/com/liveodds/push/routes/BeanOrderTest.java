package com.liveodds.push.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.liveodds.push.LiveoddsPartners;
import org.junit.jupiter.api.Test;

/**
 * Camel creates the beans of routes/beans.yaml in the order they are written while it pre-parses the file, and a
 * {@code #bean:} reference to a bean not yet made stops start-up (NoSuchBeanException: tried with the beans reversed
 * and shuffled in a plain camel-main). Until the wiring no longer hangs on that order, this keeps it right: every
 * reference names a bean of the file declared above it, and liveoddsSettings, which puts the settings in place that
 * every placeholder reads, comes first.
 */
class BeanOrderTest {

    private static final Pattern NAME = Pattern.compile("^    - name: (\\S+)$", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("#bean:([A-Za-z0-9_]+)");

    @Test
    void everyBeanReferenceNamesABeanDeclaredAboveIt() throws Exception {
        String beans = Files.readString(Path.of("routes/beans.yaml"), StandardCharsets.UTF_8);
        Matcher m = NAME.matcher(beans);
        List<Integer> starts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        while (m.find()) {
            starts.add(m.start());
            names.add(m.group(1));
        }
        assertThat(names.get(0)).isEqualTo("liveoddsSettings");
        assertThat(new HashSet<>(names)).as("bean names are unique").hasSameSizeAs(names);
        Set<String> declared = new HashSet<>();
        List<String> forward = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            String block = beans.substring(starts.get(i), i + 1 < starts.size() ? starts.get(i + 1) : beans.length());
            Matcher ref = REFERENCE.matcher(block);
            while (ref.find()) {
                if (!declared.contains(ref.group(1))) {
                    forward.add(names.get(i) + " -> " + ref.group(1));
                }
            }
            declared.add(names.get(i));
            if (names.get(i).equals("liveoddsPartners")) {
                // it binds the single partner's beans as it is made
                declared.addAll(LiveoddsPartners.BEANS);
            }
        }
        assertThat(forward).as("references to beans declared later or nowhere").isEmpty();
    }
}
