package com.liveodds.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.Reader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.liveodds.push.settings.PartnerSettings;
import com.liveodds.push.support.LoopbackPartner;
import com.liveodds.push.support.ServiceProcess;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/ as Kubernetes reads it: every manifest through the fabric8 Kubernetes model, an unknown field
 * refused; the base and the Kafka scale-out overlay (its patches applied as kustomize does, and compared with
 * {@code kubectl kustomize} where kubectl is installed) checked against the bundle's own ports, settings, health paths,
 * shutdown time-out, heap and image; and the probes asked of the service started with the base's settings.
 */
class KubernetesManifestsTest {

    private static final Path KUBERNETES = Path.of("deploy/kubernetes");
    private static final Path BASE = KUBERNETES.resolve("base");
    private static final Path OVERLAY = KUBERNETES.resolve("overlays/kafka-scale-out");
    private static final Path DOCKERFILE = Path.of("Dockerfile");
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KubernetesSerialization MODEL = new KubernetesSerialization();
    /** What a kustomization.yaml of ours may say; anything else is a typo kustomize would refuse or ignore. */
    private static final Set<String> KUSTOMIZATION_KEYS = Set.of("apiVersion", "kind", "resources", "patches");
    /** Strategic merge: the key that identifies an element of these lists (the others are replaced whole). */
    private static final Map<String, String> MERGE_KEYS = Map.of("containers", "name", "volumes", "name", "env", "name",
            "ports", "name", "volumeMounts", "mountPath", "envFrom", "configMapRef");

    @Test
    void everyManifestIsReadByTheKubernetesModelWithNoUnknownField() throws IOException {
        List<Path> files = manifests();
        assertThat(files).as("manifests under " + KUBERNETES).hasSizeGreaterThanOrEqualTo(10);
        for (Path file : files) {
            if (file.getFileName().toString().equals("kustomization.yaml")) {
                checkKustomization(file);
            } else {
                for (JsonNode document : documents(file)) {
                    HasMetadata resource = strict(document, file.toString());
                    assertThat(resource.getKind()).as(file + ": no Secret with values in the repository").isNotEqualTo("Secret");
                }
            }
        }
    }

    @Test
    void theStrictReaderRefusesAMisspelledField() {
        JsonNode probeTypo = YAML.createObjectNode().put("apiVersion", "apps/v1").put("kind", "Deployment")
                .set("spec", YAML.createObjectNode().set("template", YAML.createObjectNode().set("spec",
                        YAML.createObjectNode().set("containers", YAML.createArrayNode().add(YAML.createObjectNode()
                                .put("name", "x").set("readinesProbe", YAML.createObjectNode()))))));
        assertThatThrownBy(() -> strict(probeTypo, "a typo")).hasMessageContaining("spec.template.spec.containers[0].readinesProbe");
        JsonNode unknownKind = YAML.createObjectNode().put("apiVersion", "apps/v1").put("kind", "Deploymnet");
        assertThatThrownBy(() -> strict(unknownKind, "a typo")).hasMessageContaining("Deploymnet");
    }

    @Test
    void theOverlayPatchesOnlyWhatTheBaseHas() throws IOException {
        Map<String, JsonNode> base = render(BASE);
        JsonNode kustomization = YAML.readTree(OVERLAY.resolve("kustomization.yaml").toFile());
        assertThat(kustomization.path("resources")).extracting(JsonNode::asText).containsExactly("../../base");
        assertThat(kustomization.path("patches")).isNotEmpty();
        for (JsonNode patch : kustomization.path("patches")) {
            for (JsonNode document : documents(OVERLAY.resolve(patch.path("path").asText()))) {
                strict(document, patch.path("path").asText());
                assertThat(base).as("the target of " + patch.path("path").asText()).containsKey(id(document));
            }
        }
    }

    @Test
    void theBaseRunsOneInstanceAsTheBundleExpects() throws IOException {
        Map<String, JsonNode> base = render(BASE);
        checkDeployment(base);
        Deployment deployment = typed(base, "Deployment", Deployment.class);
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
        assertThat(deployment.getSpec().getStrategy().getType()).as("one instance owns its volume").isEqualTo("Recreate");
    }

    @Test
    void theKafkaOverlayRunsSeveralInstancesInOneGroup() throws IOException {
        Map<String, JsonNode> overlay = render(OVERLAY);
        checkDeployment(overlay);
        int replicas = typed(overlay, "Deployment", Deployment.class).getSpec().getReplicas();
        assertThat(replicas).isGreaterThan(1);
        Map<String, String> settings = typed(overlay, "ConfigMap", ConfigMap.class).getData();
        assertThat(settings).containsEntry(env("liveodds.source"), "kafka").containsKey(env("liveodds.source.kafka.brokers"));
        PodDisruptionBudget budget = typed(overlay, "PodDisruptionBudget", PodDisruptionBudget.class);
        assertThat(budget.getSpec().getMaxUnavailable()).isNull();
        assertThat(budget.getSpec().getMinAvailable().getIntVal()).isBetween(1, replicas - 1);
        PersistentVolumeClaim data = typed(overlay, "PersistentVolumeClaim", PersistentVolumeClaim.class);
        assertThat(data.getSpec().getAccessModes()).as("every instance writes the dead letters").containsExactly("ReadWriteMany");
    }

    @Test
    void kubectlKustomizeRendersWhatTheTestApplies() throws Exception {
        Path kubectl = Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
                .map(dir -> Path.of(dir, "kubectl")).filter(Files::isExecutable).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(kubectl != null, "kubectl is not installed");
        for (Path dir : List.of(BASE, OVERLAY)) {
            Process process = new ProcessBuilder(kubectl.toString(), "kustomize", dir.toString()).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as(output).isZero();
            Map<String, JsonNode> rendered = new TreeMap<>();
            for (JsonNode document : documents(output)) {
                strict(document, "kubectl kustomize " + dir);
                rendered.put(id(document), normalized(document));
            }
            Map<String, JsonNode> ours = new TreeMap<>();
            render(dir).forEach((id, document) -> ours.put(id, normalized(document)));
            assertThat(rendered).isEqualTo(ours);
        }
    }

    @Test
    void theImageRunsTheDefaultLaunchAsTheUserTheManifestsName() throws IOException {
        String dockerfile = Files.readString(DOCKERFILE).replace("\\\n", " ");
        List<String> entrypoint = new ArrayList<>();
        JSON.readTree(instruction(dockerfile, "ENTRYPOINT")).forEach(word -> entrypoint.add(word.asText()));
        List<String> defaultLaunch = new ArrayList<>(List.of("java"));
        defaultLaunch.addAll(DefaultJvm.OPTIONS);
        defaultLaunch.addAll(List.of("-jar", "liveodds-push.jar"));
        assertThat(entrypoint).isEqualTo(defaultLaunch);
        assertThat(instruction(dockerfile, "USER")).isEqualTo(imageUser() + ":" + imageUser());
        assertThat(instruction(dockerfile, "EXPOSE").split("\\s+"))
                .containsExactlyInAnyOrder(setting("camel.server.port"), setting("camel.management.port"));
        assertThat(instruction(dockerfile, "HEALTHCHECK")).contains(":" + setting("camel.management.port") + "/observe/health/live");
    }

    @Test
    void theProbesAnswerOnTheServiceStartedWithTheBaseSettings(@TempDir Path work) throws Exception {
        Map<String, JsonNode> base = render(BASE);
        Container container = container(typed(base, "Deployment", Deployment.class));
        // the container's environment: the ConfigMap, and a stand-in for each value of the Secret
        Map<String, String> environment = new LinkedHashMap<>(typed(base, "ConfigMap", ConfigMap.class).getData());
        for (EnvVar variable : container.getEnv()) {
            environment.put(variable.getName(), "k8s-test-" + variable.getValueFrom().getSecretKeyRef().getKey());
        }
        try (LoopbackPartner partner = new LoopbackPartner()) {
            // the partner, folders and ports of the test (system properties win over the environment)
            Map<String, String> settings = ServiceProcess.settings(partner.baseUrl(), partner.authUrl(), work);
            try (ServiceProcess service = ServiceProcess.start(settings, environment, work.resolve("service.log"))) {
                String management = "http://127.0.0.1:" + settings.get("camel.management.port");
                for (Probe probe : List.of(container.getLivenessProbe(), container.getReadinessProbe(), container.getStartupProbe())) {
                    URI uri = URI.create(management + probe.getHttpGet().getPath());
                    await().atMost(Duration.ofSeconds(60)).until(() -> ServiceProcess.answersOk(uri) || !service.isAlive());
                    assertThat(ServiceProcess.answersOk(uri)).as(uri + "; log:\n" + service.log()).isTrue();
                }
                assertThat(service.log()).as("the ConfigMap's LIVEODDS_LOG_FORMAT").contains("{\"time\":");
            }
        }
    }

    /** What the base and the overlay must both hold, against the bundle's own settings and image. */
    private static void checkDeployment(Map<String, JsonNode> resources) throws IOException {
        Deployment deployment = typed(resources, "Deployment", Deployment.class);
        PodSpec pod = deployment.getSpec().getTemplate().getSpec();
        Container container = container(deployment);
        Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
        assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());

        // the image's own entrypoint (the default launch), ports as application.properties sets them
        assertThat(container.getCommand()).isEmpty();
        assertThat(container.getArgs()).isEmpty();
        Map<String, Integer> ports = new HashMap<>();
        for (ContainerPort port : container.getPorts()) {
            ports.put(port.getName(), port.getContainerPort());
        }
        assertThat(ports).containsOnly(Map.entry("http", Integer.parseInt(setting("camel.server.port"))),
                Map.entry("management", Integer.parseInt(setting("camel.management.port"))));
        assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/observe/health/live");
        assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/observe/health/ready");
        for (Probe probe : List.of(container.getLivenessProbe(), container.getReadinessProbe(), container.getStartupProbe())) {
            assertThat(probe.getHttpGet().getPort().getStrVal()).isEqualTo("management");
        }

        // settings: every name one the bundle reads; credentials only from the Secret, by name
        ConfigMap settings = typed(resources, "ConfigMap", ConfigMap.class);
        assertThat(container.getEnvFrom()).singleElement()
                .satisfies(from -> assertThat(from.getConfigMapRef().getName()).isEqualTo(settings.getMetadata().getName()));
        Set<String> known = settingsAsEnvironment();
        assertThat(new TreeSet<>(settings.getData().keySet())).isSubsetOf(known);
        assertThat(settings.getData()).doesNotContainKeys(env("camel.server.port"), env("camel.management.port"));
        assertThat(container.getEnv()).isNotEmpty().allSatisfy(variable -> {
            assertThat(known).contains(variable.getName());
            assertThat(variable.getValue()).isNull();
            assertThat(variable.getValueFrom().getSecretKeyRef().getName()).isEqualTo("liveodds-push-credentials");
        });
        assertThat(container.getEnv()).extracting(EnvVar::getName)
                .contains(env("liveodds.partner.client-secret"), env("liveodds.fixtures.auth.tokens"), env("liveodds.admin.tokens"));

        // stops within its grace: camel.main.shutdown-timeout, and the JVM's exit after it
        long shutdownTimeout = Long.parseLong(setting("camel.main.shutdown-timeout"));
        assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThanOrEqualTo(shutdownTimeout + 10);

        // memory for the default launch's heap and as much again beside it
        long heap = DefaultJvm.OPTIONS.stream().filter(o -> o.startsWith("-Xmx")).map(o -> bytes(o.substring(4)))
                .findFirst().orElseThrow();
        long limit = Quantity.getAmountInBytes(container.getResources().getLimits().get("memory")).longValueExact();
        assertThat(limit).isGreaterThanOrEqualTo(2 * heap);
        assertThat(container.getResources().getRequests().get("memory")).isEqualTo(container.getResources().getLimits().get("memory"));
        assertThat(container.getResources().getRequests()).containsKey("cpu");

        // non-root as the image's user, a read-only root file system, every folder it writes on a volume
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(imageUser());
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(imageUser());
        assertThat(container.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        Map<String, Volume> volumes = new HashMap<>();
        pod.getVolumes().forEach(v -> volumes.put(v.getName(), v));
        List<String> mounts = new ArrayList<>();
        for (VolumeMount mount : container.getVolumeMounts()) {
            assertThat(volumes).containsKey(mount.getName());
            assertThat(mount.getReadOnly()).isNotEqualTo(Boolean.TRUE);
            mounts.add(mount.getMountPath());
        }
        Volume data = volumes.values().stream().filter(v -> v.getPersistentVolumeClaim() != null).findFirst().orElseThrow();
        assertThat(resources).containsKey("PersistentVolumeClaim/" + data.getPersistentVolumeClaim().getClaimName());
        String home = instruction(Files.readString(DOCKERFILE), "WORKDIR");
        Map<String, String> environment = imageEnvironment();
        environment.putAll(settings.getData());
        for (String written : List.of("liveodds.source.file.dir", "liveodds.dead-letter.dir", "liveodds.recovery.dir")) {
            String path = environment.getOrDefault(env(written), defaults().getProperty(written).replace("{{liveodds.home}}", home));
            assertThat(mounts).as(written + " = " + path + " on a volume").anyMatch(m -> under(path, m));
        }
        assertThat(mounts).as("java.io.tmpdir").contains("/tmp");
        // what the image brings to read is not hidden by a volume
        for (String read : List.of("liveodds.mapping.file", "liveodds.fixtures.file")) {
            String path = environment.get(env(read));
            assertThat(path).as(read + " set by the image").startsWith(home + "/");
            assertThat(mounts).as(read + " = " + path + " hidden by a volume").noneMatch(m -> under(path, m));
        }

        // the Service and the budget select these pods
        assertThat(podLabels).containsAllEntriesOf(typed(resources, "Service", Service.class).getSpec().getSelector());
        assertThat(typed(resources, "Service", Service.class).getSpec().getPorts())
                .allSatisfy(p -> assertThat(ports).containsKey(p.getTargetPort().getStrVal()));
        assertThat(podLabels).containsAllEntriesOf(
                typed(resources, "PodDisruptionBudget", PodDisruptionBudget.class).getSpec().getSelector().getMatchLabels());
    }

    /** The resources of a kustomization, by "Kind/name": its resources, then its patches merged as kustomize does. */
    private static Map<String, JsonNode> render(Path dir) throws IOException {
        JsonNode kustomization = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
        Map<String, JsonNode> resources = new LinkedHashMap<>();
        for (JsonNode resource : kustomization.path("resources")) {
            Path path = dir.resolve(resource.asText()).normalize();
            if (Files.isDirectory(path)) {
                resources.putAll(render(path));
            } else {
                for (JsonNode document : documents(path)) {
                    resources.put(id(document), document);
                }
            }
        }
        for (JsonNode patch : kustomization.path("patches")) {
            for (JsonNode document : documents(dir.resolve(patch.path("path").asText()))) {
                JsonNode target = resources.get(id(document));
                assertThat(target).as("target of " + patch).isNotNull();
                merge((ObjectNode) target, (ObjectNode) document);
            }
        }
        return resources;
    }

    /** A strategic merge patch: objects merged, null removes, listed lists merged by their key, other lists replaced. */
    private static void merge(ObjectNode target, ObjectNode patch) {
        patch.properties().forEach(entry -> {
            String name = entry.getKey();
            JsonNode value = entry.getValue();
            JsonNode existing = target.get(name);
            if (value.isNull()) {
                target.remove(name);
            } else if (value.isObject() && existing != null && existing.isObject()) {
                merge((ObjectNode) existing, (ObjectNode) value);
            } else if (value.isArray() && existing != null && existing.isArray() && MERGE_KEYS.containsKey(name)) {
                String key = MERGE_KEYS.get(name);
                for (JsonNode element : value) {
                    JsonNode match = null;
                    for (JsonNode candidate : existing) {
                        if (candidate.path(key).equals(element.path(key))) {
                            match = candidate;
                        }
                    }
                    if (match == null) {
                        ((ArrayNode) existing).add(element.deepCopy());
                    } else {
                        merge((ObjectNode) match, (ObjectNode) element);
                    }
                }
            } else {
                target.set(name, value.deepCopy());
            }
        });
    }

    /** The same resource whatever the order of its keyed lists (kustomize puts a patch's new elements first). */
    private static JsonNode normalized(JsonNode node) {
        JsonNode copy = node.deepCopy();
        sortKeyedLists(copy);
        return copy;
    }

    private static void sortKeyedLists(JsonNode node) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> field = it.next();
                sortKeyedLists(field.getValue());
                String key = MERGE_KEYS.get(field.getKey());
                if (key != null && field.getValue().isArray()) {
                    List<JsonNode> elements = new ArrayList<>();
                    field.getValue().forEach(elements::add);
                    elements.sort(Comparator.comparing(e -> e.path(key).toString()));
                    ((ArrayNode) field.getValue()).removeAll().addAll(elements);
                }
            }
        } else if (node.isArray()) {
            node.forEach(KubernetesManifestsTest::sortKeyedLists);
        }
    }

    /** The resource as the Kubernetes model reads it; fails on a kind it does not know and on any field it does not have. */
    private static HasMetadata strict(JsonNode document, String source) {
        Object resource = MODEL.unmarshal(document.toString());
        if (!(resource instanceof HasMetadata typed) || resource instanceof GenericKubernetesResource) {
            throw new AssertionError(source + ": " + document.path("apiVersion").asText() + " " + document.path("kind").asText()
                    + " is no kind of the Kubernetes model");
        }
        List<String> unknown = new ArrayList<>();
        unknownFields(resource, "", unknown);
        if (!unknown.isEmpty()) {
            throw new AssertionError(source + ": " + typed.getKind() + " has no field " + unknown);
        }
        return typed;
    }

    /** The model keeps what it does not know in each object's additionalProperties: none may have any. */
    private static void unknownFields(Object value, String path, List<String> unknown) {
        if (value instanceof Collection<?> elements) {
            int i = 0;
            for (Object element : elements) {
                unknownFields(element, path + "[" + i++ + "]", unknown);
            }
        } else if (value instanceof Map<?, ?> entries) {
            entries.forEach((k, v) -> unknownFields(v, path + "." + k, unknown));
        } else if (value != null && value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model.")) {
            for (Method getter : value.getClass().getMethods()) {
                if (getter.getParameterCount() > 0 || !getter.getName().startsWith("get") || getter.getDeclaringClass() == Object.class) {
                    continue;
                }
                String field = Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
                Class<?> type = getter.getReturnType();
                if (getter.getName().equals("getAdditionalProperties")) {
                    ((Map<?, ?>) invoke(getter, value)).keySet().forEach(k -> unknown.add((path + "." + k).substring(1)));
                } else if (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)
                        || type.getName().startsWith("io.fabric8.kubernetes.api.model.")) {
                    unknownFields(invoke(getter, value), path + "." + field, unknown);
                }
            }
        }
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(getter.toString(), e);
        }
    }

    private static void checkKustomization(Path file) throws IOException {
        JsonNode kustomization = YAML.readTree(file.toFile());
        assertThat(kustomization.path("kind").asText()).isEqualTo("Kustomization");
        kustomization.fieldNames().forEachRemaining(key -> assertThat(KUSTOMIZATION_KEYS).as(file + ": " + key).contains(key));
        for (JsonNode resource : kustomization.path("resources")) {
            assertThat(file.resolveSibling(resource.asText())).as(file + ": resource").exists();
        }
        for (JsonNode patch : kustomization.path("patches")) {
            assertThat(patch.fieldNames()).toIterable().as(file + ": a patch by file").containsExactly("path");
            assertThat(file.resolveSibling(patch.path("path").asText())).as(file + ": patch").exists();
        }
        try (Stream<Path> siblings = Files.list(file.getParent())) {
            Set<String> listed = new TreeSet<>();
            kustomization.path("resources").forEach(r -> listed.add(r.asText()));
            kustomization.path("patches").forEach(p -> listed.add(p.path("path").asText()));
            assertThat(siblings.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml") && !n.equals("kustomization.yaml")))
                    .as(file + " names every manifest beside it").allMatch(listed::contains);
        }
    }

    private static List<Path> manifests() throws IOException {
        try (Stream<Path> files = Files.walk(KUBERNETES)) {
            return files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml")).sorted().toList();
        }
    }

    private static List<JsonNode> documents(Path file) throws IOException {
        return documents(Files.readString(file));
    }

    private static List<JsonNode> documents(String yaml) throws IOException {
        List<JsonNode> documents = new ArrayList<>();
        try (var parser = new YAMLFactory().createParser(yaml)) {
            YAML.readValues(parser, JsonNode.class).forEachRemaining(d -> {
                if (d != null && !d.isMissingNode() && !d.isNull()) {
                    documents.add(d);
                }
            });
        }
        return documents;
    }

    private static String id(JsonNode document) {
        return document.path("kind").asText() + "/" + document.path("metadata").path("name").asText();
    }

    private static <T> T typed(Map<String, JsonNode> resources, String kind, Class<T> type) {
        List<JsonNode> ofKind = resources.entrySet().stream().filter(e -> e.getKey().startsWith(kind + "/")).map(Map.Entry::getValue).toList();
        assertThat(ofKind).as(kind).hasSize(1);
        return MODEL.convertValue(ofKind.get(0), type);
    }

    private static Container container(Deployment deployment) {
        List<Container> containers = deployment.getSpec().getTemplate().getSpec().getContainers();
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    /** Every setting the bundle has, as the environment variable that gives it (Camel's: upper case, '.' and '-' as '_'). */
    private static Set<String> settingsAsEnvironment() throws IOException {
        Set<String> names = new TreeSet<>();
        defaults().stringPropertyNames().forEach(key -> names.add(env(key)));
        applicationProperties().stringPropertyNames().forEach(key -> names.add(env(key)));
        names.add(env(PartnerSettings.LIST));
        return names;
    }

    private static String env(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    private static String setting(String key) throws IOException {
        String value = applicationProperties().getProperty(key);
        assertThat(value).as(key + " in application.properties").isNotNull();
        return value.trim();
    }

    private static Properties applicationProperties() throws IOException {
        return load(Path.of("application.properties"));
    }

    private static Properties defaults() throws IOException {
        return load(Path.of("src/main/resources/liveodds/defaults.properties"));
    }

    private static Properties load(Path file) throws IOException {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        }
        return properties;
    }

    /** The image's numeric user (Dockerfile {@code USER uid:gid}). */
    private static long imageUser() throws IOException {
        String user = instruction(Files.readString(DOCKERFILE), "USER");
        assertThat(user).as("a numeric non-root user").matches("[1-9]\\d*:\\d+");
        return Long.parseLong(user.substring(0, user.indexOf(':')));
    }

    /** The ENV of the image's last stage ({@code ENV A=1 B=2}, continued lines joined). */
    private static Map<String, String> imageEnvironment() throws IOException {
        Map<String, String> environment = new LinkedHashMap<>();
        Matcher pair = Pattern.compile("([A-Z_]+)=(\\S+)").matcher(instruction(Files.readString(DOCKERFILE).replace("\\\n", " "), "ENV"));
        while (pair.find()) {
            environment.put(pair.group(1), pair.group(2));
        }
        return environment;
    }

    /** The arguments of the last instruction of that name. */
    private static String instruction(String dockerfile, String name) {
        String found = null;
        for (String line : dockerfile.replace("\\\n", " ").split("\n")) {
            if (line.startsWith(name + " ")) {
                found = line.substring(name.length()).trim();
            }
        }
        assertThat(found).as(name + " in " + DOCKERFILE).isNotNull();
        return found;
    }

    private static boolean under(String path, String mount) {
        return Path.of(path).normalize().startsWith(Path.of(mount));
    }

    private static long bytes(String jvmSize) {
        long number = Long.parseLong(jvmSize.substring(0, jvmSize.length() - 1));
        return switch (Character.toLowerCase(jvmSize.charAt(jvmSize.length() - 1))) {
            case 'g' -> number << 30;
            case 'm' -> number << 20;
            case 'k' -> number << 10;
            default -> throw new IllegalArgumentException(jvmSize);
        };
    }
}
