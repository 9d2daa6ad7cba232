package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fleetwave.agent.kubernetes.Fabric8NodeReader;
import io.fleetwave.agent.kubernetes.KubernetesApi;
import io.fleetwave.testsupport.logging.LogRecords;
import io.fleetwave.testsupport.network.SilentSocket;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zone and labels from the Node object, read with the real fabric8 client from a stand-in API
 * server in CRUD mode; and every way the read can fail, each falling back within the bound.
 */
class NodeObjectIT {
  private static final Duration BOUND = Duration.ofSeconds(2);
  private static final Map<String, String> LABELS =
      Map.of(
          "topology.kubernetes.io/zone", "us-central1-a",
          "cloud.google.com/gke-nodepool", "h200-pool",
          "nvidia.com/gpu.product", "NVIDIA-H200",
          "nvidia.com/gpu.count", "8");

  @TempDir Path dir;
  private KubernetesApi api;
  private Map<String, String> env;

  @BeforeEach
  void apiServer() throws IOException {
    api = new KubernetesApi().node("gpu-7", LABELS);
    env = api.podEnvironment(dir, "gpu-7");
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private Placement placement(Config config, String... args) {
    List<String> all = new ArrayList<>(List.of("--bootstrap", "k:9092"));
    all.addAll(List.of(args));
    return Placement.of(
        AgentOptions.parse(all.toArray(String[]::new), env),
        env,
        () -> new Fabric8NodeReader(config, BOUND),
        BOUND);
  }

  @Test
  void zoneAndLabelsAreTakenFromTheNodeObject() {
    Placement placement = placement(api.config());

    assertThat(placement.zone()).isEqualTo("us-central1-a");
    assertThat(placement.labels()).isEqualTo(LABELS);
  }

  @Test
  void explicitZoneAndLabelsWinOverTheNodeObject() {
    assertThat(placement(api.config(), "--zone", "rack-3"))
        .isEqualTo(new Placement("rack-3", LABELS));
    assertThat(placement(api.config(), "--labels", "pool=a"))
        .isEqualTo(new Placement("us-central1-a", Map.of("pool", "a")));
  }

  @Test
  void theLabelPrefixesFilterTheNodesLabels() {
    Placement placement = placement(api.config(), "--node-label-prefixes", "nvidia.com/");

    assertThat(placement.zone()).isEqualTo("us-central1-a");
    assertThat(placement.labels())
        .isEqualTo(Map.of("nvidia.com/gpu.product", "NVIDIA-H200", "nvidia.com/gpu.count", "8"));
  }

  @Test
  void aForbiddenNodeObjectFallsBackToTheOptionsWithOneLogLine() {
    api.forbid("gpu-7");

    String line = fallsBackWithinTheBound(api.config(), "--zone", "z1");

    assertThat(line)
        .startsWith(
            "WARNING Node object of gpu-7 not read (forbidden (HTTP 403): the agent's service"
                + " account may not get nodes; grant it get on nodes (a ClusterRole)); zone and"
                + " labels from --zone/--labels or their defaults: zone=z1, labels={}");
  }

  @Test
  void anAbsentNodeObjectFallsBackWithOneLogLine() {
    env = new HashMap<>(env);
    env.put("NODE_NAME", "gpu-404");

    String line = fallsBackWithinTheBound(api.config());

    assertThat(line)
        .isEqualTo(
            "WARNING Node object of gpu-404 not read (no Node named gpu-404 in the cluster); zone"
                + " and labels from --zone/--labels or their defaults: zone=default, labels={}");
  }

  @Test
  void anUnreachableApiServerFallsBackWithinTheBound() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    Config config =
        new ConfigBuilder(api.config()).withMasterUrl("https://localhost:" + closed).build();

    String line = fallsBackWithinTheBound(config);

    assertThat(line)
        .startsWith(
            "WARNING Node object of gpu-7 not read (the API server at https://localhost:"
                + closed
                + "/ did not answer: ")
        .endsWith("zone=default, labels={}");
  }

  @Test
  void anApiServerThatNeverAnswersFallsBackWithinTheBound() throws IOException {
    try (SilentSocket silent = SilentSocket.onFreePort()) {
      Config config =
          new ConfigBuilder(api.config())
              .withMasterUrl("https://localhost:" + silent.port())
              .build();

      String line = fallsBackWithinTheBound(config);

      assertThat(line)
          .startsWith("WARNING Node object of gpu-7 not read (")
          .contains("zone=default");
    }
  }

  /** Reads through Placement and returns its one log line; fails past the bound (plus slack). */
  private String fallsBackWithinTheBound(Config config, String... args) {
    try (LogRecords log = new LogRecords(Placement.class)) {
      long started = System.nanoTime();
      placement(config, args);
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(took).isLessThan(BOUND.plusMillis(500));
      assertThat(log.lines()).hasSize(1);
      return log.lines().getFirst();
    }
  }
}
