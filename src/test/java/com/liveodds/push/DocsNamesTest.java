package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.liveodds.push.settings.StartupSettings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every name README.md and docs/*.md give in backticks is one the bundle has: a bean ({@code liveoddsDeliveries}), a route,
 * route configuration or endpoint name ({@code liveodds-ingest}, {@code direct:liveodds-ingest}), a name of the
 * Kubernetes manifests, a Camel setting, a class, or a file of the repository. A partner's copy is named with its name ({@code liveodds-push-acme},
 * {@code liveoddsHttp[-<name>]}); the liveodds.* settings are DocsTest's.
 */
class DocsNamesTest {

    private static final Path MAIN_JAVA = Path.of("src/main/java");
    private static final Path PACKAGE = MAIN_JAVA.resolve("com/liveodds/push");
    /** Where a relative path of the pages may start: the repository, the bundle's packages, its class path. */
    private static final List<Path> ROOTS = List.of(Path.of("."), PACKAGE, Path.of("src/test/java/com/liveodds/push"),
            Path.of("src/main/resources"), Path.of("target/classes"));
    /** A partner's own copy of a bean, route or endpoint: the partner's name as suffix, or an example partner's. */
    private static final Pattern PARTNER_SUFFIX = Pattern.compile("(?:\\[-<name>\\]|-<name>|-acme|-betco)$");
    private static final Pattern BEAN = Pattern.compile("(?<![\\w-])liveodds[A-Z][A-Za-z0-9]*(?:\\[-<name>\\]|-<name>|-[a-zA-Z0-9]+)?");
    private static final Pattern ROUTE_NAME = Pattern.compile("(?<![\\w.:/-])liveodds-[a-z0-9<>-]*(?:\\[-<name>\\])?");
    private static final Pattern ENDPOINT = Pattern.compile("(?<![\\w-])([a-z][a-zA-Z-]*):(liveodds[a-zA-Z0-9<>-]*(?:\\[-<name>\\])?)(?![/\\w])");
    private static final Pattern CAMEL_SETTING = Pattern.compile("(?<![\\w.])camel\\.[a-z0-9]+\\.[a-zA-Z0-9.*-]+");
    /** A class as the pages write it: alone, with its package folder, a method, or a * for its family. */
    private static final Pattern CLASS = Pattern.compile(
            "((?:[a-z0-9]+/)*)([A-Z][a-z0-9]+(?:[A-Z]+[a-z0-9]+)+[A-Z]*)(\\*|\\.[a-z][A-Za-z]*(?:\\([^)]*\\))?)?");
    private static final Pattern CLASS_WORD = Pattern.compile("[A-Z][a-z0-9]+(?:[A-Z]+[a-z0-9]+)+[A-Z]*");
    private static final Pattern FILE = Pattern.compile("\\.?/?([A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.*-]+)*)/?");
    private static final Pattern STRING_LITERAL = Pattern.compile("\"(?:[^\"\\\\\\n]|\\\\.)*\"");
    private static final Pattern COMMENT = Pattern.compile("//[^\\n]*|/\\*.*?\\*/", Pattern.DOTALL);
    private static final Pattern NAME_IN_CODE = Pattern.compile("[A-Za-z][A-Za-z0-9]*(?:[-:][A-Za-z0-9]+)*");

    /** The names the code and the route files use: bean, route, endpoint and header names. */
    private static final Set<String> NAMES = new TreeSet<>();
    /** Every class the pages may name: the repository's, its class path's and the JDK's, and the alert rules. */
    private static final Set<String> CLASSES = new TreeSet<>();
    private static final Set<String> CAMEL_SETTINGS = new TreeSet<>();
    private static final List<String> SPANS = new ArrayList<>();

    @BeforeAll
    static void readTheBundle() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src")); Stream<Path> examples = Files.walk(Path.of("examples"))) {
            for (Path file : Stream.concat(files, examples).filter(p -> p.toString().endsWith(".java")).toList()) {
                String code = Files.readString(file);
                Matcher type = Pattern.compile("\\b(?:class|record|enum|interface)\\s+([A-Z]\\w*)").matcher(code);
                while (type.find()) {
                    CLASSES.add(type.group(1));
                }
                if (file.startsWith(MAIN_JAVA)) {
                    Matcher literal = STRING_LITERAL.matcher(COMMENT.matcher(code).replaceAll(""));
                    while (literal.find()) {
                        addNames(literal.group());
                    }
                }
            }
        }
        // the route files, and the Kubernetes manifests (their objects' names and values)
        try (Stream<Path> routes = Files.list(Path.of("routes")); Stream<Path> manifests = Files.walk(Path.of("deploy"))) {
            for (Path file : Stream.concat(routes, manifests).filter(p -> p.toString().endsWith(".yaml")).toList()) {
                for (String line : Files.readAllLines(file)) {
                    addNames(line.replaceAll("(^|\\s)#.*$", ""));
                }
            }
        }
        Matcher alert = Pattern.compile("alert:\\s*(\\w+)").matcher(Files.readString(Path.of("ops/prometheus/alerts.yaml")));
        while (alert.find()) {
            CLASSES.add(alert.group(1));
        }
        classPathClasses();
        // Camel's own header and property names (CamelHttpPath)
        for (java.lang.reflect.Field constant : org.apache.camel.Exchange.class.getFields()) {
            if (constant.getType() == String.class) {
                try {
                    NAMES.add((String) constant.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        try (InputStream metadata = DocsNamesTest.class.getClassLoader()
                .getResourceAsStream("META-INF/camel-main-configuration-metadata.json")) {
            for (JsonNode option : new ObjectMapper().readTree(metadata).path("properties")) {
                CAMEL_SETTINGS.add(relaxed(option.path("name").asText()));
            }
        }
        for (Path page : DocsTest.pages()) {
            for (String line : DocsTest.prose(page)) {
                for (String span : DocsTest.codeSpans(line)) {
                    SPANS.add(page + ": `" + span + "`");
                }
            }
            // the plain fenced blocks (a folder tree, log lines) name classes too
            for (String word : plainBlockWords(page)) {
                if (CLASS_WORD.matcher(word).matches()) {
                    SPANS.add(page + ": `" + word + "`");
                }
            }
        }
    }

    /** The words of a page's fenced blocks that give no language. */
    private static List<String> plainBlockWords(Path page) throws IOException {
        List<String> words = new ArrayList<>();
        boolean plain = false;
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            Matcher fence = Pattern.compile("^\\s*```\\s*([\\w-]*)").matcher(line);
            if (fence.find()) {
                plain = !fenced && fence.group(1).isEmpty();
                fenced = !fenced;
            } else if (plain) {
                words.addAll(List.of(line.split("[^A-Za-z0-9_]+")));
            }
        }
        return words;
    }

    @Test
    void everyBeanThePagesNameIsBound() {
        List<String> unknown = new ArrayList<>();
        for (String span : SPANS) {
            Matcher bean = BEAN.matcher(code(span));
            while (bean.find()) {
                if (!NAMES.contains(ownName(bean.group()))) {
                    unknown.add(span + ": no bean or name " + bean.group());
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void everyRouteAndEndpointThePagesNameIsInTheRoutes() {
        List<String> unknown = new ArrayList<>();
        for (String span : SPANS) {
            String code = code(span);
            Matcher endpoint = ENDPOINT.matcher(code);
            while (endpoint.find()) {
                String name = ownName(endpoint.group(1)) + ":" + ownName(endpoint.group(2));
                if (!NAMES.contains(name) && !(name.endsWith("-") && NAMES.stream().anyMatch(n -> n.startsWith(name)))) {
                    unknown.add(span + ": no endpoint " + endpoint.group());
                }
            }
            Matcher route = ROUTE_NAME.matcher(ENDPOINT.matcher(code).replaceAll(""));
            while (route.find()) {
                String name = ownName(route.group()).replaceAll("<[a-z]+>.*$", "");
                if (!NAMES.contains(name) && !(name.endsWith("-") && NAMES.stream().anyMatch(n -> n.startsWith(name)))) {
                    unknown.add(span + ": no route, route configuration or name " + route.group());
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void aPartnersOwnNamesCarryItsNameNotANumber() throws IOException {
        // liveodds-push-acme, liveoddsHttp[-<name>], <queue>.<name>: the suffix is the name in liveodds.partners
        Pattern number = Pattern.compile("\\[-N\\]|[\\w>]-N\\b|\\.N\\b|\\b[Pp]artner N\\b");
        List<String> numbered = new ArrayList<>();
        for (Path page : DocsTest.pages()) {
            for (String line : Files.readAllLines(page)) {
                if (number.matcher(line).find()) {
                    numbered.add(page + ": " + line.strip());
                }
            }
        }
        assertThat(numbered).isEmpty();
    }

    @Test
    void everyClassThePagesNameExists() {
        List<String> unknown = new ArrayList<>();
        for (String span : SPANS) {
            Matcher type = CLASS.matcher(code(span));
            if (!type.matches()) {
                continue;
            }
            String folder = type.group(1);
            String name = type.group(2);
            boolean family = "*".equals(type.group(3));
            boolean known = family ? Stream.concat(CLASSES.stream(), NAMES.stream()).anyMatch(c -> c.startsWith(name))
                    : CLASSES.contains(name) || NAMES.contains(name);
            if (!known || !folder.isEmpty() && !javaFileIn(folder, name, family)) {
                unknown.add(span + ": no class " + folder + name);
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void everyCamelSettingThePagesNameIsCamels() {
        List<String> unknown = new ArrayList<>();
        for (String span : SPANS) {
            Matcher setting = CAMEL_SETTING.matcher(code(span));
            while (setting.find()) {
                String key = relaxed(setting.group().replaceAll("\\.\\*$", ""));
                if (!CAMEL_SETTINGS.contains(key) && CAMEL_SETTINGS.stream().noneMatch(s -> s.startsWith(key + "."))) {
                    unknown.add(span + ": no Camel setting " + setting.group());
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void everyFileThePagesNameIsInTheRepository() throws IOException {
        // what the service writes (data/inbox and what is in it, the sandbox's token and booking files) is made at run time
        Set<String> written = new TreeSet<>();
        DocsTest.defaults().values().forEach(v -> written.add(v.toString().replace("{{liveodds.home}}/", "")));
        written.add(StartupSettings.SANDBOX_B_BOOKING);
        List<String> missing = new ArrayList<>();
        for (String span : SPANS) {
            String code = code(span);
            Matcher file = FILE.matcher(code);
            if (!file.matches() || !code.contains("/") || code.startsWith("/")) {
                continue;
            }
            String path = file.group(1);
            String top = path.split("/")[0];
            boolean ours = ROOTS.stream().anyMatch(root -> Files.isDirectory(root.resolve(top)));
            if (!ours || top.equals("target") || written.contains(path) || written.stream().anyMatch(w -> path.equals(w + "-b") || path.startsWith(w + "/"))) {
                continue;
            }
            if (ROOTS.stream().noneMatch(root -> exists(root, path))) {
                missing.add(span + ": no file " + path);
            }
        }
        assertThat(missing).isEmpty();
    }

    /** The span's text, from the "page: `span`" of {@link #SPANS}. */
    private static String code(String span) {
        return span.substring(span.indexOf(": `") + 3, span.length() - 1);
    }

    /** The name a partner's copy is made from: liveodds-push-acme is liveodds-push, liveoddsHttp[-<name>] liveoddsHttp. */
    private static String ownName(String name) {
        return PARTNER_SUFFIX.matcher(name).replaceAll("");
    }

    private static void addNames(String text) {
        Matcher name = NAME_IN_CODE.matcher(text);
        while (name.find()) {
            NAMES.add(name.group());
            // a scheme:path is also its path alone (direct:liveodds-ingest names the route liveodds-ingest's input)
            int colon = name.group().indexOf(':');
            if (colon > 0) {
                NAMES.add(name.group().substring(0, colon));
                NAMES.add(name.group().substring(colon + 1));
            }
        }
    }

    /** Camel's relaxed names: camel.main.shutdown-timeout is camel.main.shutdownTimeout. */
    private static String relaxed(String key) {
        return key.replace("-", "").toLowerCase(Locale.ROOT);
    }

    private static boolean javaFileIn(String folder, String name, boolean family) {
        Path dir = PACKAGE.resolve(folder);
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .anyMatch(f -> family ? f.startsWith(name) && f.endsWith(".java") : f.equals(name + ".java"));
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean exists(Path root, String path) {
        if (!path.contains("*")) {
            return Files.exists(root.resolve(path)) || Files.exists(root.resolve(path + ".java"));
        }
        Path folder = root.resolve(path.substring(0, path.lastIndexOf('/')));
        if (!Files.isDirectory(folder)) {
            return false;
        }
        var glob = FileSystems.getDefault().getPathMatcher("glob:" + path.substring(path.lastIndexOf('/') + 1));
        try (Stream<Path> files = Files.list(folder)) {
            return files.anyMatch(f -> glob.matches(f.getFileName()) || glob.matches(Path.of(f.getFileName() + ".java")));
        } catch (IOException e) {
            return false;
        }
    }

    /** The simple names of the classes of the test class path and of the JDK. */
    private static void classPathClasses() throws IOException {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (entry.endsWith(".jar") && Files.isRegularFile(Path.of(entry))) {
                try (ZipFile jar = new ZipFile(entry)) {
                    jar.stream().forEach(e -> addClass(e.getName()));
                }
            }
        }
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        try (Stream<Path> files = Files.walk(jrt.getPath("/modules"))) {
            files.forEach(p -> addClass(p.toString()));
        }
    }

    private static void addClass(String entry) {
        if (entry.endsWith(".class")) {
            String name = entry.substring(entry.lastIndexOf('/') + 1, entry.length() - ".class".length());
            CLASSES.add(name.substring(name.lastIndexOf('$') + 1));
        }
    }
}
