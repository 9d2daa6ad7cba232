package io.fleetwave.controlplane.rollout.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.testsupport.network.SilentSocket;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes Job executor against the fabric8 mock API server in CRUD mode (no Quarkus start).
 */
public class KubernetesJobDriverExecutorTest {
  private static final Duration BOUND = Duration.ofSeconds(20);
  private static final String NAMESPACE = "gpu-ops";

  public static final String TEMPLATE =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: replaced-by-fleetwave
        labels:
          team: gpu
      spec:
        backoffLimit: 0
        template:
          spec:
            nodeName: ${NODE}
            restartPolicy: Never
            containers:
              - name: upgrade
                image: registry.example/os-upgrader:1
                env:
                  - {name: NODE, value: "${NODE}"}
                  - {name: DRIVER_VERSION, value: "${DRIVER_VERSION}"}
                  - {name: ARTIFACT_KIND, value: "${ARTIFACT_KIND}"}
                  - {name: IMAGE, value: "${IMAGE}"}
                  - {name: OS_ID, value: "${OS_ID}"}
                  - {name: OS_VERSION, value: "${OS_VERSION}"}
                  - {name: REQUEST_ID, value: "${REQUEST_ID}"}
      """;

  private static KubernetesMockServer server;
  private static KubernetesClient client;

  @TempDir static Path dir;

  @BeforeAll
  static void startServer() {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
            false);
    server.init();
    client = server.createClient();
  }

  @AfterAll
  static void stopServer() {
    client.close();
    server.destroy();
  }

  private static DriverJobTemplate template(String name, String yaml) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, yaml);
    return DriverJobTemplate.load(file);
  }

  private static KubernetesJobDriverExecutor executor(String namespace) throws IOException {
    return new KubernetesJobDriverExecutor(
        client, template("job.yaml", TEMPLATE), namespace, Duration.ofSeconds(10));
  }

  @Test
  void anOsUpgradeBecomesAJobForTheNodeWithEveryPlaceholderFilled() throws IOException {
    DriverChangeRequest request = DriverRequests.talos("talos-h200-1");
    executor(NAMESPACE).request(request).await().atMost(BOUND);

    Job job =
        client
            .batch()
            .v1()
            .jobs()
            .inNamespace(NAMESPACE)
            .withName(KubernetesJobDriverExecutor.jobName(request))
            .get();
    assertThat(job).isNotNull();
    assertThat(job.getMetadata().getName()).startsWith("fleetwave-driver-talos-h200-1-");
    assertThat(job.getMetadata().getAnnotations())
        .containsEntry(KubernetesJobDriverExecutor.REQUEST_ID, request.id())
        .containsEntry(KubernetesJobDriverExecutor.NODE, "talos-h200-1");
    assertThat(job.getMetadata().getLabels())
        .containsEntry("team", "gpu")
        .containsEntry(KubernetesJobDriverExecutor.MANAGED_BY, "fleetwave")
        .containsEntry(KubernetesJobDriverExecutor.ROLLOUT, DriverRequests.ROLLOUT.toString());
    var pod = job.getSpec().getTemplate().getSpec();
    assertThat(pod.getNodeName()).isEqualTo("talos-h200-1");
    assertThat(env(job))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "NODE", "talos-h200-1",
                "DRIVER_VERSION", "580.95.05",
                "ARTIFACT_KIND", "os-image",
                "IMAGE", "",
                "OS_ID", "talos",
                "OS_VERSION", "v1.10.6",
                "REQUEST_ID", request.id()));
  }

  @Test
  void aContainerImageFillsTheImage() throws IOException {
    DriverChangeRequest request = DriverRequests.container("dc-h100-2");
    executor(NAMESPACE).request(request).await().atMost(BOUND);
    Job job = job(NAMESPACE, request);
    assertThat(env(job))
        .containsEntry("ARTIFACT_KIND", "container-image")
        .containsEntry("IMAGE", "nvcr.io/nvidia/driver:580.95.05-ubuntu22.04")
        .containsEntry("OS_ID", "");
  }

  @Test
  void aRepeatedRequestIsANoOpAndANewGenerationIsANewJob() throws IOException {
    KubernetesJobDriverExecutor executor = executor(NAMESPACE);
    DriverChangeRequest request = DriverRequests.talos("talos-h200-2");
    executor.request(request).await().atMost(BOUND);
    executor.request(request).await().atMost(BOUND);
    DriverChangeRequest next =
        new DriverChangeRequest(
            DriverRequests.ROLLOUT + ":talos-h200-2:2",
            DriverRequests.ROLLOUT,
            "talos-h200-2",
            HostKind.TALOS,
            "570.172.08",
            request.artifact());
    executor.request(next).await().atMost(BOUND);

    assertThat(jobsOf("talos-h200-2"))
        .containsExactlyInAnyOrder(
            KubernetesJobDriverExecutor.jobName(request),
            KubernetesJobDriverExecutor.jobName(next));
  }

  @Test
  void aJobOfThatNameFromSomethingElseIsAFailureNamingIt() throws IOException {
    DriverChangeRequest request = DriverRequests.talos("talos-h200-9");
    String name = KubernetesJobDriverExecutor.jobName(request);
    client
        .batch()
        .v1()
        .jobs()
        .inNamespace(NAMESPACE)
        .resource(
            new JobBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNewTemplate()
                .withNewSpec()
                .addNewContainer()
                .withName("other")
                .withImage("busybox")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build())
        .create();

    assertThatThrownBy(() -> executor(NAMESPACE).request(request).await().atMost(BOUND))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("driver executor kubernetes-job")
        .hasMessageContaining("node talos-h200-9")
        .hasMessageContaining(
            "Job " + NAMESPACE + "/" + name + " already exists for no Fleetwave request");
  }

  @Test
  void withoutANamespaceTheClientsNamespaceIsUsed() throws IOException {
    KubernetesJobDriverExecutor executor = executor(null);
    assertThat(executor.namespace()).isEqualTo(client.getNamespace());
    DriverChangeRequest request = DriverRequests.talos("talos-h200-3");
    executor.request(request).await().atMost(BOUND);
    assertThat(job(client.getNamespace(), request)).isNotNull();
  }

  @Test
  void jobNamesAreDnsLabelsOfAtMost63CharactersUniquePerRequest() {
    String longNode = "Node_With.Caps-" + "x".repeat(100);
    DriverChangeRequest a = request("r:" + longNode + ":1", longNode);
    DriverChangeRequest b = request("r:" + longNode + ":2", longNode);
    for (DriverChangeRequest request : List.of(a, b, request("r:-:1", "---"))) {
      String name = KubernetesJobDriverExecutor.jobName(request);
      assertThat(name).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
      assertThat(KubernetesJobDriverExecutor.jobName(request)).as("deterministic").isEqualTo(name);
    }
    assertThat(KubernetesJobDriverExecutor.jobName(a))
        .startsWith("fleetwave-driver-node-with-caps-xxx")
        .isNotEqualTo(KubernetesJobDriverExecutor.jobName(b));
  }

  @Test
  void aValueThatWouldBreakTheYamlIsRefusedNamingTheNode() throws IOException {
    DriverChangeRequest request = request("r:bad:1", "bad node\n  evil: true");
    assertThatThrownBy(() -> executor(NAMESPACE).request(request).await().atMost(BOUND))
        .isInstanceOf(DriverChangeException.class)
        .hasMessageContaining("driver executor kubernetes-job")
        .hasMessageContaining("${NODE}");
  }

  /**
   * A template passes values to commands ({@code args}): one starting with - reads as an option.
   */
  @Test
  void aValueThatWouldReadAsAnOptionIsRefusedNamingThePlaceholder() throws IOException {
    for (String node : List.of("-", "--force", "-rf")) {
      DriverChangeRequest request = request("r:option:1", node);
      assertThatThrownBy(() -> executor(NAMESPACE).request(request).await().atMost(BOUND))
          .as(node)
          .isInstanceOf(DriverChangeException.class)
          .hasMessageContaining("${NODE}")
          .hasMessageContaining("must not start with '-'");
    }
  }

  @Test
  void anApiThatDoesNotAnswerFailsWithinTheTimeout() throws Exception {
    try (SilentSocket silent = SilentSocket.onFreePort();
        KubernetesClient stalled =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder()
                        .withMasterUrl("http://127.0.0.1:" + silent.port())
                        .withRequestTimeout(60_000)
                        .withRequestRetryBackoffLimit(0)
                        .build())
                .build()) {
      KubernetesJobDriverExecutor executor =
          new KubernetesJobDriverExecutor(
              stalled, template("stalled.yaml", TEMPLATE), NAMESPACE, Duration.ofMillis(500));
      long start = System.nanoTime();
      assertThatThrownBy(
              () -> executor.request(DriverRequests.talos("talos-h200-7")).await().atMost(BOUND))
          .isInstanceOf(DriverChangeException.class)
          .hasMessageContaining("node talos-h200-7")
          .hasMessageContaining("no answer from the Kubernetes API within PT0.5S");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void aMissingTemplateIsRefusedNamingTheFile() {
    Path missing = dir.resolve("no-such-template.yaml");
    assertThatThrownBy(() -> DriverJobTemplate.load(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("driver job template " + missing)
        .hasMessageContaining("cannot be read");
  }

  @Test
  void aTemplateThatIsNotAJobIsRefusedNamingTheFileAndWhatItIs() {
    assertThatThrownBy(
            () ->
                template(
                    "configmap.yaml",
                    """
                    apiVersion: v1
                    kind: ConfigMap
                    metadata: {name: x}
                    data: {node: "${NODE}"}
                    """))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("configmap.yaml")
        .hasMessageContaining("must be a batch/v1 Job, found v1 ConfigMap");
    assertThatThrownBy(() -> template("garbage.yaml", "spec: [unclosed\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("garbage.yaml");
  }

  @Test
  void anUnknownPlaceholderIsRefusedWithItsLine() {
    assertThatThrownBy(
            () -> template("unknown.yaml", TEMPLATE.replace("${OS_VERSION}", "${OS_RELEASE}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown.yaml")
        .hasMessageContaining("unknown placeholders ${OS_RELEASE} (line 22)");
  }

  private static DriverChangeRequest request(String id, String node) {
    return new DriverChangeRequest(
        id,
        DriverRequests.ROLLOUT,
        node,
        HostKind.COS,
        "570.172.08",
        new DriverArtifact.OsImage("580.95.05", "cos", "121"));
  }

  private static Job job(String namespace, DriverChangeRequest request) {
    return client
        .batch()
        .v1()
        .jobs()
        .inNamespace(namespace)
        .withName(KubernetesJobDriverExecutor.jobName(request))
        .get();
  }

  private static List<String> jobsOf(String node) {
    return client.batch().v1().jobs().inNamespace(NAMESPACE).list().getItems().stream()
        .filter(
            j ->
                node.equals(j.getMetadata().getAnnotations().get(KubernetesJobDriverExecutor.NODE)))
        .map(j -> j.getMetadata().getName())
        .toList();
  }

  private static Map<String, String> env(Job job) {
    return job.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv().stream()
        .collect(Collectors.toMap(EnvVar::getName, e -> e.getValue() == null ? "" : e.getValue()));
  }
}
