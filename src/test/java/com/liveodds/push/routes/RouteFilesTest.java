package com.liveodds.push.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Camel reads routes/*.yaml in whatever order the folder lists them, which differs between machines; the layout
 * must not depend on it (a bean referring to a bean of a file read later fails start-up on some machines only).
 */
class RouteFilesTest {

    private static List<Path> routeFiles() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("routes"))) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @Test
    void beansAreDeclaredInBeansYamlOnly() throws Exception {
        for (Path file : routeFiles()) {
            if (!file.getFileName().toString().equals("beans.yaml")) {
                assertThat(Files.readAllLines(file)).as(file.toString()).noneMatch(l -> l.startsWith("- beans:"));
            }
        }
    }

    @Test
    void everyRouteHasAStableId() throws Exception {
        for (Path file : routeFiles()) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).equals("- route:")) {
                    assertThat(lines.get(i + 1)).as("%s line %d", file, i + 2).startsWith("    id: ");
                }
            }
        }
    }
}
