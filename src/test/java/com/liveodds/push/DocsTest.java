package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.liveodds.push.check.CheckPartnerArguments;
import com.liveodds.push.settings.PartnerSettings;

/**
 * README.md and docs/*.md as a newcomer follows them: every relative link and anchor leads somewhere, every setting
 * the bundle has a default for is in the configuration reference and every setting the pages name exists, and the
 * commands of their bash blocks (and the {@code $ } lines of console blocks) name real Maven profiles, properties and
 * tests, options the jar accepts, and files of the repository.
 */
class DocsTest {

    private static final Path README = Path.of("README.md");
    private static final Path DOCS = Path.of("docs");
    private static final Path CONFIGURATION = DOCS.resolve("configuration.md");
    private static final Path DEFAULTS = Path.of("src/main/resources/liveodds/defaults.properties");

    private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*([\\w-]*)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.+?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    /** A setting key as the pages write it: liveodds.partner.tls.*, liveodds.partners.<name>.booking. */
    private static final Pattern SETTING = Pattern.compile("(?<!\\.)liveodds(?:\\.(?:[a-z0-9][a-z0-9-]*|<[a-z]+>|\\*))+");
    /** A relative path in a command, starting at a word boundary (not inside a URL or an absolute path). */
    private static final Pattern RELATIVE_PATH = Pattern.compile("(?<![\\w/:.~$-])(\\.?[A-Za-z0-9_-]+(?:/[A-Za-z0-9_.*-]+)+)/?");
    private static final Set<String> MAVEN_PHASES = Set.of("clean", "compile", "test", "package", "verify", "install",
            "camel:run");
    /** Maven's, Surefire's and the Invoker plugin's own properties the pages may give. */
    private static final Set<String> MAVEN_PROPERTIES = Set.of("test", "skipTests", "surefire.failIfNoSpecifiedTests",
            "argLine", "invoker.skip");

    @Test
    void theReadmeIsTheFrontDoorWithTheTwoCommands() throws IOException {
        String readme = Files.readString(README);
        assertThat(readme).contains("mvn -B compile camel:run").contains("mvn -B verify");
        assertThat(readme.lines().count()).as("README.md lines: the rest belongs in docs/").isLessThanOrEqualTo(250);
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            for (String target : links(page)) {
                if (target.matches("(?i)(https?|mailto):.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.toAbsolutePath().getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page + ": " + target + " (no such file)");
                } else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(page + ": " + target + " (no such heading in " + resolved.getFileName() + ")");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void everyDefaultSettingIsDocumentedAndEveryDocumentedOneExists() throws IOException {
        Set<String> defaults = defaults().stringPropertyNames();
        Set<String> documented = documentedSettings();
        assertThat(new TreeSet<>(defaults)).as("settings of defaults.properties missing from " + CONFIGURATION)
                .isSubsetOf(documented);
        Set<String> known = new TreeSet<>(defaults);
        known.add(PartnerSettings.LIST);
        assertThat(new TreeSet<>(documented)).as("settings in " + CONFIGURATION + " the bundle does not have")
                .isSubsetOf(known);
    }

    @Test
    void theSettingsOfEachPartnerAreTheOnesTheBundleReads() throws IOException {
        assertThat(documentedPartnerSettings()).isEqualTo(partnerSettingsRead());
    }

    @Test
    void everySettingThePagesNameExists() throws IOException {
        Set<String> settings = documentedSettings();
        Set<String> ofEachPartner = documentedPartnerSettings();
        // the attributes of the attempt's span (docs/operations.md, Tracing) are named liveodds.* too
        Set<String> spanAttributes = new TreeSet<>();
        Matcher attribute = Pattern.compile("setAttribute\\(\"(liveodds\\.[a-z_.]+)\"")
                .matcher(Files.readString(Path.of("src/main/java/com/liveodds/push/tracing/BundleSpans.java")));
        while (attribute.find()) {
            spanAttributes.add(attribute.group(1));
        }
        List<String> unknown = new ArrayList<>();
        for (Path page : pages()) {
            Matcher m = SETTING.matcher(Files.readString(page));
            while (m.find()) {
                String name = m.group();
                if (spanAttributes.stream().noneMatch(a -> a.startsWith(name)) && !isSetting(name, settings, ofEachPartner)) {
                    unknown.add(page + ": " + m.group());
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void mavenCommandsNameRealProfilesPropertiesAndTests() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Set<String> profiles = new TreeSet<>();
        Matcher profile = Pattern.compile("<profile>\\s*(?:<!--.*?-->\\s*)?<id>([^<]+)</id>", Pattern.DOTALL).matcher(pom);
        while (profile.find()) {
            profiles.add(profile.group(1));
        }
        Set<String> benchProperties = benchProperties();
        List<String> wrong = new ArrayList<>();
        for (String command : commands()) {
            List<String> words = words(command);
            if (words.isEmpty() || !words.get(0).equals("mvn")) {
                continue;
            }
            for (String word : words.subList(1, words.size())) {
                if (word.startsWith("-P")) {
                    for (String id : word.substring(2).split(",")) {
                        if (!profiles.contains(id)) {
                            wrong.add(command + ": no profile " + id + " in pom.xml");
                        }
                    }
                } else if (word.startsWith("-D")) {
                    String[] property = word.substring(2).split("=", 2);
                    String name = property[0];
                    if (name.equals("test")) {
                        for (String test : property[1].split(",")) {
                            if (!testClassExists(test)) {
                                wrong.add(command + ": no test class " + test);
                            }
                        }
                    } else if (!MAVEN_PROPERTIES.contains(name) && !benchProperties.contains(name)
                            && !pom.contains("<" + name + ">") && !pom.contains("${" + name + "}")) {
                        wrong.add(command + ": property " + name + " is read by nothing");
                    }
                } else if (!word.startsWith("-") && !MAVEN_PHASES.contains(word)) {
                    wrong.add(command + ": " + word + " is no phase or goal of this build");
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void jarCommandsUseCommandsAndOptionsTheJarAccepts() throws IOException {
        List<String> checked = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (String command : commands()) {
            List<String> words = words(command);
            int jar = words.indexOf("-jar");
            if (words.isEmpty() || !words.get(0).equals("java") || jar < 0 || jar + 1 >= words.size()) {
                continue;
            }
            if (!words.get(jar + 1).endsWith("liveodds-push.jar")) {
                wrong.add(command + ": not the runnable target/liveodds-push.jar");
                continue;
            }
            List<String> arguments = new ArrayList<>(words.subList(jar + 2, words.size()));
            checked.add(command);
            if (!arguments.isEmpty() && arguments.get(0).equals("check-partner")) {
                try {
                    CheckPartnerArguments.parse(arguments.subList(1, arguments.size()));
                } catch (IllegalArgumentException e) {
                    wrong.add(command + ": " + e.getMessage());
                }
                continue;
            }
            int configDir = arguments.indexOf("--config-dir");
            if (configDir >= 0) {
                arguments.subList(configDir, Math.min(configDir + 2, arguments.size())).clear();
            }
            String unknown = LiveoddsPush.unknownArgument(arguments);
            if (unknown != null) {
                wrong.add(command + ": " + unknown);
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(checked).as("java -jar commands found in the pages").isNotEmpty();
    }

    @Test
    void filesNamedInCommandsExist() throws IOException {
        // what the service writes itself (data/inbox, data/.sandbox-token) need not be in the repository
        Properties defaults = defaults();
        Set<String> written = new TreeSet<>();
        for (String key : defaults.stringPropertyNames()) {
            written.add(defaults.getProperty(key).replace("{{liveodds.home}}/", ""));
        }
        List<String> missing = new ArrayList<>();
        for (String command : commands()) {
            Matcher m = RELATIVE_PATH.matcher(command);
            while (m.find()) {
                String path = m.group(1);
                String top = path.split("/")[0];
                // target/ is the build's output; a path under another name (application/json) is no file of ours
                // the second sandbox partner's token file is the first's name with its suffix (data/.sandbox-token-b)
                if (top.equals("target") || !Files.isDirectory(Path.of(top)) || written.contains(path)
                        || written.stream().anyMatch(w -> path.matches(java.util.regex.Pattern.quote(w) + "-[a-z]"))) {
                    continue;
                }
                if (!Files.exists(Path.of(path))) {
                    missing.add(command + ": " + path);
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README));
        try (Stream<Path> files = Files.list(DOCS)) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The lines of a page outside its fenced code blocks. */
    static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
            } else if (!fenced) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static List<String> links(Path page) throws IOException {
        List<String> links = new ArrayList<>();
        for (String line : prose(page)) {
            Matcher m = LINK.matcher(INLINE_CODE.matcher(line).replaceAll(""));
            while (m.find()) {
                links.add(m.group(1));
            }
        }
        return links;
    }

    /** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as '-', repeats numbered. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new LinkedHashSet<>();
        if (!page.toString().endsWith(".md")) {
            return anchors;
        }
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(page)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String text = heading.group(2).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
                String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replaceAll("\\s", "-");
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return anchors;
    }

    /** The commands of the bash blocks, continued lines joined, comments and a trailing '&' removed. */
    private static List<String> commands() throws IOException {
        List<String> commands = new ArrayList<>();
        for (Path page : pages()) {
            String language = null;
            StringBuilder command = new StringBuilder();
            for (String line : Files.readAllLines(page)) {
                Matcher fence = FENCE.matcher(line);
                if (fence.find()) {
                    language = language == null ? fence.group(1) : null;
                    continue;
                }
                String text = line;
                if ("console".equals(language)) {
                    if (!text.startsWith("$ ")) {
                        continue;
                    }
                    text = text.substring(2);
                } else if (!"bash".equals(language)) {
                    continue;
                }
                text = text.replaceAll("(?:^|\\s)#.*$", "").strip();
                if (text.endsWith("\\")) {
                    command.append(text, 0, text.length() - 1).append(' ');
                    continue;
                }
                command.append(text);
                String whole = command.toString().replaceAll("\\s*&$", "").strip();
                command.setLength(0);
                if (!whole.isEmpty()) {
                    commands.add(whole);
                }
            }
        }
        assertThat(commands).as("commands in the pages' bash blocks").isNotEmpty();
        return commands;
    }

    /** A command's words as the shell splits them: quotes group, and are removed. */
    private static List<String> words(String command) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        char quote = 0;
        boolean inWord = false;
        for (char c : command.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    static Properties defaults() throws IOException {
        Properties defaults = new Properties();
        try (Reader reader = Files.newBufferedReader(DEFAULTS)) {
            defaults.load(reader);
        }
        return defaults;
    }

    /** The liveodds.* keys of the configuration reference's settings table ({@code .password} continues a key). */
    private static Set<String> documentedSettings() throws IOException {
        Set<String> keys = new TreeSet<>();
        for (String cell : firstCells("## Settings")) {
            String previous = null;
            for (String name : codeSpans(cell)) {
                if (name.startsWith(".") && previous != null) {
                    keys.add(previous.substring(0, previous.lastIndexOf('.')) + name);
                } else if (name.startsWith("liveodds.")) {
                    keys.add(name);
                    previous = name;
                }
            }
        }
        assertThat(keys).as("settings in " + CONFIGURATION).isNotEmpty();
        return keys;
    }

    /** The keys under liveodds.partners.<name>. of the configuration reference. */
    private static Set<String> documentedPartnerSettings() throws IOException {
        Set<String> keys = new TreeSet<>();
        for (String cell : firstCells("## Settings of each partner")) {
            keys.addAll(codeSpans(cell));
        }
        keys.removeIf(key -> key.startsWith("liveodds."));
        assertThat(keys).as("settings of each partner in " + CONFIGURATION).isNotEmpty();
        return keys;
    }

    /** What PartnerSettings asks of a listed partner's settings: every key it reads under liveodds.partners.p. */
    private static Set<String> partnerSettingsRead() {
        String prefix = PartnerSettings.LIST + ".p.";
        Map<String, String> given = Map.of(PartnerSettings.LIST, "p", prefix + "id", "42",
                prefix + "base-url", "https://push.partner.example", prefix + "auth-url", "https://auth.partner.example",
                prefix + "client-id", "liveodds-push", prefix + "client-secret", "secret");
        Set<String> read = new TreeSet<>();
        PartnerSettings.all(key -> {
            if (key.startsWith(prefix)) {
                read.add(key.substring(prefix.length()));
            }
            return given.get(key);
        });
        return read;
    }

    private static boolean isSetting(String name, Set<String> settings, Set<String> ofEachPartner) {
        String key = name.endsWith(".*") ? name.substring(0, name.length() - 2) : name;
        String[] parts = key.split("\\.", 4);
        if (parts.length == 4 && (parts[0] + "." + parts[1]).equals(PartnerSettings.LIST)) {
            String own = parts[3];
            return ofEachPartner.stream().anyMatch(k -> k.equals(own) || k.startsWith(own + "."));
        }
        if (parts.length == 3 && key.startsWith(PartnerSettings.LIST + ".")) {
            return true; // liveodds.partners.<name>: a partner's prefix
        }
        return settings.contains(key) || key.equals(PartnerSettings.LIST)
                || settings.stream().anyMatch(k -> k.startsWith(key + "."));
    }

    /** The first cell of each row of the tables under a heading of the configuration reference, up to the next one. */
    private static List<String> firstCells(String heading) throws IOException {
        List<String> cells = new ArrayList<>();
        boolean under = false;
        for (String line : prose(CONFIGURATION)) {
            if (line.startsWith("## ")) {
                under = line.equals(heading);
            } else if (under && line.startsWith("|") && !line.startsWith("|---")) {
                cells.add(line.split("\\|")[1]);
            }
        }
        if (!cells.isEmpty()) {
            cells.remove(0); // the header row
        }
        return cells;
    }

    static List<String> codeSpans(String text) {
        List<String> spans = new ArrayList<>();
        Matcher m = INLINE_CODE.matcher(text);
        while (m.find()) {
            spans.add(m.group().substring(1, m.group().length() - 1));
        }
        return spans;
    }

    private static Set<String> benchProperties() throws IOException {
        Set<String> names = new TreeSet<>();
        Pattern read = Pattern.compile("\"(bench\\.[a-z.-]+)\"");
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = read.matcher(Files.readString(file));
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    private static boolean testClassExists(String name) throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src/test/java"))) {
            return files.anyMatch(p -> p.getFileName().toString().equals(name + ".java"));
        }
    }
}
