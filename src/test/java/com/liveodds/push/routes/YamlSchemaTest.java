package com.liveodds.push.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.apache.camel.dsl.yaml.YamlRoutesBuilderLoader;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Every file of routes/ validates against the YAML DSL JSON schema that ships in the camel-yaml-dsl jar of the Camel
 * version in use (the schema editors and validators of our users work with): Camel itself accepts more, e.g. a
 * placeholder where the schema wants a boolean.
 */
class YamlSchemaTest {

    private static final String SCHEMA = "schema/camelYamlDsl.json";

    @Test
    void everyRouteFileValidatesAgainstTheCamelYamlDslSchema() throws Exception {
        JsonSchema schema;
        // the schema of the jar Camel loads YAML routes with, not a copy
        try (InputStream in = YamlRoutesBuilderLoader.class.getClassLoader().getResourceAsStream(SCHEMA)) {
            assertThat(in).as(SCHEMA + " in camel-yaml-dsl").isNotNull();
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(in);
        }
        ObjectMapper json = new ObjectMapper();
        List<String> violations = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> listing = Files.list(Path.of("routes"))) {
            files = listing.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            Object yaml = new Load(LoadSettings.builder().build()).loadFromString(Files.readString(file));
            JsonNode document = json.valueToTree(yaml);
            for (ValidationMessage violation : schema.validate(document)) {
                violations.add(file + " " + violation.getMessage());
            }
        }
        assertThat(violations).as("schema violations (file, then path in the file: message)").isEmpty();
    }
}
