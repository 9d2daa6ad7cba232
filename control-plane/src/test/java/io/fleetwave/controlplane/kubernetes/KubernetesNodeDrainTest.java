package io.fleetwave.controlplane.kubernetes;

import static io.fleetwave.controlplane.kubernetes.KubernetesPods.daemonSetPod;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.gpuOperatorLabels;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.labelled;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.mirrorPod;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.node;
import static io.fleetwave.controlplane.kubernetes.KubernetesPods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fleetwave.controlplane.fixtures.MockKubernetesApi;
import io.fleetwave.controlplane.rollout.drain.DrainException;
import io.fleetwave.core.rollout.disruption.Disruption;
import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.core.selector.LabelSelector;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.Phase;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cordon and drain against the fabric8 mock API server in CRUD mode, with the Eviction API and a
 * request journal added by {@link MockKubernetesApi} (no Quarkus start, no engine).
 */
class KubernetesNodeDrainTest {
  private static final Duration BOUND = Duration.ofSeconds(20);
  // The drain's own bounds where a test expects it to succeed: a mock API server answering slowly
  // on
  // a loaded build machine (5 s ran out there once) must not look like a stuck drain.
  private static final Duration PATIENCE = Duration.ofSeconds(15);
  private static final UUID ROLLOUT = UUID.fromString("6c1d7d38-4a4e-4c55-9f0c-3a4a1f2b9e11");
  private static final String OWNER = "rollout/" + ROLLOUT;
  private static final List<String> OPERANDS =
      List.of("device-plugin", "gpu-feature-discovery", "dcgm-exporter", "dcgm", "nvsm");

  private MockKubernetesApi api;
  private KubernetesClient client;
  private KubernetesClient drainClient;

  @BeforeEach
  void start() {
    api = MockKubernetesApi.start();
    client = api.client();
    // As application.properties sets it: one API call is one request (no client-side retries).
    drainClient =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(client.getConfiguration())
                    .withRequestRetryBackoffLimit(0)
                    .build())
            .build();
  }

  @AfterEach
  void stop() {
    drainClient.close();
    api.close();
  }

  private KubernetesNodeDrain drain(Duration timeout, String waitFor, boolean full) {
    return new KubernetesNodeDrain(
        drainClient,
        new DrainSettings(
            timeout,
            Duration.ofMillis(100),
            new PodSelection(
                List.of("nvidia.com/gpu", "nvidia.com/mig-*"), LabelSelector.parse(""), full),
            LabelSelector.parse(waitFor),
            PATIENCE,
            OPERANDS,
            PATIENCE));
  }

  private KubernetesNodeDrain drain() {
    return drain(PATIENCE, "", false);
  }

  private static NodeOutage migChange(String node) {
    return new NodeOutage(ROLLOUT, node, Phase.FORWARD, Disruption.GPU, true, "all-balanced");
  }

  /**
   * The GPU Operator's labels of a node whose change to all-balanced is in {@code state}, with the
   * operands Fleetwave pauses deployed as {@code pausedOperands} says (GPU feature discovery, off
   * on this node in {@link KubernetesPods#gpuOperatorLabels()}, stays off).
   */
  private static Map<String, String> migChangeLabels(String state, String pausedOperands) {
    return Map.of(
        "nvidia.com/mig.config", "all-balanced",
        "nvidia.com/mig.config.state", state,
        "nvidia.com/gpu.deploy.device-plugin", pausedOperands,
        "nvidia.com/gpu.deploy.dcgm-exporter", pausedOperands,
        "nvidia.com/gpu.deploy.gpu-feature-discovery", "false");
  }

  private void create(Node node, Pod... pods) {
    client.nodes().resource(node).create();
    for (Pod pod : pods) {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
    }
  }

  /** The node's labels, once it is seen cordoned, and cordoned by this rollout. */
  private Map<String, String> labelsOfNodeTheRolloutCordoned(String name) {
    Node node = read(name);
    assertThat(node.getSpec().getUnschedulable()).isTrue();
    assertThat(node.getMetadata().getAnnotations()).containsEntry(NodeMarks.CORDONED_BY, OWNER);
    return node.getMetadata().getLabels();
  }

  private Node read(String name) {
    return client.nodes().withName(name).get();
  }

  private boolean exists(String namespace, String pod) {
    return client.pods().inNamespace(namespace).withName(pod).get() != null;
  }

  /** Index in the journal of the first request that matches, -1 if none. */
  private int first(String method, String pathPart, String... bodyParts) {
    List<MockKubernetesApi.Request> journal = api.journal();
    for (int i = 0; i < journal.size(); i++) {
      MockKubernetesApi.Request r = journal.get(i);
      if (r.method().equals(method)
          && r.path().contains(pathPart)
          && java.util.Arrays.stream(bodyParts).allMatch(r.body()::contains)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void aMigChangeCordonsEvictsOnlyGpuPodsThenPausesTheDeployedOperandsAndPutsItAllBack() {
    create(
        node("gpu-1", gpuOperatorLabels(), false),
        pod("gpu-jobs", "train-1", "gpu-1", "nvidia.com/gpu"),
        pod("ml", "infer-1", "gpu-1", "nvidia.com/mig-1g.10gb"),
        pod("web", "nginx", "gpu-1", null),
        daemonSetPod("gpu-operator", "dcgm-exporter-x", "gpu-1", "nvidia.com/gpu"),
        pod("web", "elsewhere", "gpu-2", "nvidia.com/gpu"));
    KubernetesNodeDrain drain = drain();

    NodeTakenOutOfService out = drain.takeOutOfService(migChange("gpu-1")).await().atMost(BOUND);

    assertThat(out.cordoned()).isTrue();
    assertThat(out.cordonedBefore()).isFalse();
    assertThat(out.evicted()).containsExactlyInAnyOrder("gpu-jobs/train-1", "ml/infer-1");
    assertThat(out.pausedOperands()).containsExactly("device-plugin", "dcgm-exporter");
    assertThat(out.migConfigBefore()).isEqualTo("all-disabled");
    assertThat(exists("gpu-jobs", "train-1")).isFalse();
    assertThat(exists("web", "nginx")).as("a pod without GPUs stays").isTrue();
    assertThat(exists("gpu-operator", "dcgm-exporter-x")).as("DaemonSet pods stay").isTrue();
    assertThat(exists("web", "elsewhere")).as("pods of other nodes stay").isTrue();
    assertThat(labelsOfNodeTheRolloutCordoned("gpu-1"))
        .containsEntry("nvidia.com/gpu-driver-upgrade.skip", "true")
        .containsAllEntriesOf(migChangeLabels("pending", "paused-for-mig-change"));
    int cordon = first("PATCH", "/nodes/gpu-1", "unschedulable");
    int eviction = first("POST", "/pods/train-1/eviction");
    int labels = first("PATCH", "/nodes/gpu-1", "paused-for-mig-change");
    assertThat(cordon).isNotNegative().isLessThan(eviction);
    assertThat(labels).as("labels after the evictions").isGreaterThan(eviction);

    NodeReturnedToService back = drain.returnToService(migChange("gpu-1")).await().atMost(BOUND);

    assertThat(back.uncordoned()).isTrue();
    assertThat(back.restoredOperands()).containsExactly("dcgm-exporter", "device-plugin");
    Node after = read("gpu-1");
    assertThat(after.getSpec().getUnschedulable()).isNotEqualTo(true);
    assertThat(after.getMetadata().getAnnotations())
        .doesNotContainKeys(NodeMarks.CORDONED_BY, NodeMarks.LABELS_BEFORE);
    assertThat(after.getMetadata().getLabels())
        .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip")
        .containsAllEntriesOf(migChangeLabels("success", "true"));
    int restore = first("PATCH", "/nodes/gpu-1", "\"value\":\"success\"");
    int uncordon = first("PATCH", "/nodes/gpu-1", "unschedulable", "false");
    assertThat(restore).as("labels set back before the uncordon").isGreaterThan(labels);
    assertThat(uncordon).isGreaterThan(restore);
  }

  @Test
  void aNodeSomeoneElseCordonedStaysCordonedAndAnUpgradeSkipThatWasThereStays() {
    Map<String, String> labels =
        new HashMap<>(Map.of("nvidia.com/gpu-driver-upgrade.skip", "true"));
    create(node("gpu-1", labels, true), pod("gpu-jobs", "train-1", "gpu-1", "nvidia.com/gpu"));
    KubernetesNodeDrain drain = drain();
    NodeOutage driver =
        new NodeOutage(ROLLOUT, "gpu-1", Phase.FORWARD, Disruption.GPU, false, null);

    NodeTakenOutOfService out = drain.takeOutOfService(driver).await().atMost(BOUND);
    NodeReturnedToService back = drain.returnToService(driver).await().atMost(BOUND);

    assertThat(out.cordonedBefore()).isTrue();
    assertThat(out.evicted()).containsExactly("gpu-jobs/train-1");
    assertThat(out.pausedOperands()).as("no MIG change, no operand paused").isEmpty();
    assertThat(back.uncordoned()).isFalse();
    assertThat(back.note()).contains("stays cordoned");
    Node after = read("gpu-1");
    assertThat(after.getSpec().getUnschedulable()).isTrue();
    assertThat(after.getMetadata().getAnnotations()).doesNotContainKey(NodeMarks.CORDONED_BY);
    assertThat(after.getMetadata().getLabels())
        .containsEntry("nvidia.com/gpu-driver-upgrade.skip", "true")
        .doesNotContainKeys("nvidia.com/mig.config", "nvidia.com/mig.config.state");
  }

  @Test
  void anEvictionABudgetRefusesIsTriedAgainUntilTheTimeoutThenTheNodeFailsNamingThePod() {
    create(
        node("gpu-1", gpuOperatorLabels(), false),
        pod("gpu-jobs", "train-7", "gpu-1", "nvidia.com/gpu"));
    api.protect("gpu-jobs", "train-7");
    KubernetesNodeDrain drain = drain(Duration.ofSeconds(1), "", false);
    long started = System.nanoTime();

    assertThatThrownBy(() -> drain.takeOutOfService(migChange("gpu-1")).await().atMost(BOUND))
        .isInstanceOf(DrainException.class)
        .hasMessage(
            "eviction of gpu-jobs/train-7 blocked by a PodDisruptionBudget for 1s; the node"
                + " stays cordoned (fleetwave.io/cordoned-by="
                + OWNER
                + ")");

    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
        .as("its 1 s timeout ends it, well before the test's bound")
        .isLessThan(10_000);
    long tries = api.journal().stream().filter(r -> r.evicted() != null).count();
    assertThat(tries).as("tried again every 100 ms").isGreaterThan(3);
    assertThat(exists("gpu-jobs", "train-7")).isTrue();
    Node after = read("gpu-1");
    assertThat(after.getSpec().getUnschedulable()).isTrue();
    assertThat(after.getMetadata().getLabels())
        .as("the upgrade hold is undone, the MIG labels were never written")
        .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip")
        .containsEntry("nvidia.com/mig.config.state", "success")
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true");
  }

  @Test
  void aFailedChangeSetsTheOperandsBackAndTheMigStateToFailedAndKeepsTheCordon() {
    create(node("gpu-1", gpuOperatorLabels(), false));
    KubernetesNodeDrain drain = drain();
    drain.takeOutOfService(migChange("gpu-1")).await().atMost(BOUND);

    NodeKeptOutOfService kept =
        drain
            .keepOutOfService(migChange("gpu-1"), "GPU 0: reset refused: train.py runs")
            .await()
            .atMost(BOUND);

    assertThat(kept.restoredOperands()).containsExactly("dcgm-exporter", "device-plugin");
    assertThat(kept.reason())
        .startsWith("GPU 0: reset refused: train.py runs")
        .contains("nvidia.com/mig.config.state=failed", "stays cordoned", OWNER);
    assertThat(labelsOfNodeTheRolloutCordoned("gpu-1"))
        .containsEntry("nvidia.com/mig.config.state", "failed")
        .containsEntry("nvidia.com/mig.config", "all-balanced")
        .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
        .containsEntry("nvidia.com/gpu.deploy.dcgm-exporter", "true")
        .doesNotContainKey("nvidia.com/gpu-driver-upgrade.skip");
  }

  @Test
  void aRebootEvictsEveryPodButDaemonSetAndMirrorPodsAndTheMigStateSaysRebooting() {
    create(
        node("gpu-1", gpuOperatorLabels(), false),
        pod("web", "nginx", "gpu-1", null),
        mirrorPod("kube-system", "etcd-gpu-1", "gpu-1"),
        daemonSetPod("fleetwave", "agent-x", "gpu-1", null));
    KubernetesNodeDrain drain = drain();
    NodeOutage reboot =
        new NodeOutage(ROLLOUT, "gpu-1", Phase.FORWARD, Disruption.NODE, true, "all-balanced");

    NodeTakenOutOfService out = drain.takeOutOfService(reboot).await().atMost(BOUND);
    drain.rebooting(reboot).await().atMost(BOUND);

    assertThat(out.evicted()).containsExactly("web/nginx");
    assertThat(exists("kube-system", "etcd-gpu-1")).isTrue();
    assertThat(exists("fleetwave", "agent-x")).isTrue();
    assertThat(read("gpu-1").getMetadata().getLabels())
        .containsEntry("nvidia.com/mig.config.state", "rebooting");
  }

  @Test
  // The delayed deletion is not awaited: the test asserts on its effect on the drain.
  @SuppressWarnings("FutureReturnValueIgnored")
  void podsOfTheWaitForSelectorAreWaitedForAndNotEvictedWhenTheyFinish() {
    create(
        node("gpu-1", Map.of(), false),
        labelled(pod("batch", "etl-1", "gpu-1", "nvidia.com/gpu"), Map.of("kind", "batch")),
        pod("gpu-jobs", "train-1", "gpu-1", "nvidia.com/gpu"));
    KubernetesNodeDrain drain = drain(PATIENCE, "kind=batch", false);
    CompletableFuture.runAsync(
        () -> client.pods().inNamespace("batch").withName("etl-1").delete(),
        CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS));

    NodeTakenOutOfService out =
        drain
            .takeOutOfService(
                new NodeOutage(ROLLOUT, "gpu-1", Phase.FORWARD, Disruption.GPU, false, null))
            .await()
            .atMost(BOUND);

    assertThat(out.evicted()).containsExactly("gpu-jobs/train-1");
    assertThat(out.note()).contains("waited for 1 selected pod(s)");
    assertThat(api.journal().stream().map(MockKubernetesApi.Request::evicted))
        .doesNotContain("batch/etl-1");
  }

  @Test
  void aNodeOutsideTheClusterIsLeftAlone() {
    KubernetesNodeDrain drain = drain();

    NodeTakenOutOfService out =
        drain.takeOutOfService(migChange("vgpu-host-3")).await().atMost(BOUND);
    NodeReturnedToService back =
        drain.returnToService(migChange("vgpu-host-3")).await().atMost(BOUND);

    assertThat(out.cordoned()).isFalse();
    assertThat(out.note()).contains("not a Kubernetes node");
    assertThat(back.uncordoned()).isFalse();
  }

  @Test
  void humanDurationsReadTheWayPeopleWriteThem() {
    assertThat(PodEvictions.human(Duration.ofMinutes(5))).isEqualTo("5m");
    assertThat(PodEvictions.human(Duration.ofSeconds(90))).isEqualTo("1m30s");
    assertThat(PodEvictions.human(Duration.ofMillis(1040))).isEqualTo("1s");
    assertThat(PodEvictions.human(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(PodEvictions.human(Duration.ofHours(1))).isEqualTo("1h");
  }
}
