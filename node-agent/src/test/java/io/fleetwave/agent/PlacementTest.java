package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.agent.kubernetes.NodeReader;
import io.fleetwave.agent.kubernetes.NodeUnreadableException;
import io.fleetwave.testsupport.logging.LogRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where zone and labels come from, with a stand-in Node reader (the real one: NodeObjectIT). */
class PlacementTest {
  private static final Duration BOUND = Duration.ofSeconds(2);
  private static final Map<String, String> NODE_LABELS =
      Map.of(
          "topology.kubernetes.io/zone", "eu-west-1b",
          "nvidia.com/gpu.product", "NVIDIA-H200",
          "kubernetes.io/hostname", "gpu-7");

  @TempDir Path dir;
  private Map<String, String> pod;
  private final AtomicInteger readersCreated = new AtomicInteger();

  @BeforeEach
  void aPod() throws IOException {
    Path token = Files.writeString(dir.resolve("token"), "eyJhbGciOi...");
    pod =
        Map.of(
            "KUBERNETES_SERVICE_HOST", "10.96.0.1",
            "KUBERNETES_SERVICE_PORT", "443",
            "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", token.toString());
  }

  private Supplier<NodeReader> reader(NodeReader reader) {
    return () -> {
      readersCreated.incrementAndGet();
      return reader;
    };
  }

  private static AgentOptions options(Map<String, String> env, String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--bootstrap";
    all[1] = "k:9092";
    System.arraycopy(args, 0, all, 2, args.length);
    return AgentOptions.parse(all, env);
  }

  /** Where this environment and options place the agent, its Node object carrying NODE_LABELS. */
  private Placement placed(Map<String, String> env, String... args) {
    return Placement.of(options(env, args), env, reader(node -> Optional.of(NODE_LABELS)), BOUND);
  }

  private static Map<String, String> with(Map<String, String> env, String key, String value) {
    Map<String, String> copy = new HashMap<>(env);
    copy.put(key, value);
    return copy;
  }

  @Test
  void inAPodThatKnowsItsNodeNameZoneAndLabelsComeFromTheNodeObject() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env);

    assertThat(placement.zone()).isEqualTo("eu-west-1b");
    assertThat(placement.labels()).isEqualTo(NODE_LABELS);
  }

  @Test
  void theZoneOptionWinsOverTheNodeObjectAndItsLabelsStillCome() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env, "--zone", "rack-12");

    assertThat(placement.zone()).isEqualTo("rack-12");
    assertThat(placement.labels()).isEqualTo(NODE_LABELS);
  }

  @Test
  void theLabelsOptionReplacesTheNodeObjectsLabelsAndItsZoneStillComes() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env, "--labels", "pool=training");

    assertThat(placement.zone()).isEqualTo("eu-west-1b");
    assertThat(placement.labels()).isEqualTo(Map.of("pool", "training"));
  }

  @Test
  void withZoneAndLabelsGivenTheNodeObjectIsNotRead() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env, "--zone", "z", "--labels", "a=b");

    assertThat(placement).isEqualTo(new Placement("z", Map.of("a", "b")));
    assertThat(readersCreated).hasValue(0);
  }

  @Test
  void offKubernetesNoReaderIsCreatedAndNothingIsLogged() {
    Map<String, String> env = Map.of("NODE_NAME", "gpu-7");
    try (LogRecords log = new LogRecords(Placement.class)) {
      Placement placement = placed(env);

      assertThat(placement).isEqualTo(new Placement("default", Map.of()));
      assertThat(readersCreated).hasValue(0);
      assertThat(log.lines()).isEmpty();
    }
  }

  @Test
  void aPodWithoutItsServiceAccountTokenIsTreatedAsOffKubernetes() {
    Map<String, String> env =
        with(with(pod, "NODE_NAME", "gpu-7"), "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", "/absent");

    Placement placement = placed(env);

    assertThat(placement).isEqualTo(new Placement("default", Map.of()));
    assertThat(readersCreated).hasValue(0);
  }

  @Test
  void aTokenWithoutKubernetesServiceHostIsNotAPod() {
    Map<String, String> env = new HashMap<>(with(pod, "NODE_NAME", "gpu-7"));
    env.remove("KUBERNETES_SERVICE_HOST");

    Placement placement = placed(env);

    assertThat(placement).isEqualTo(new Placement("default", Map.of()));
    assertThat(readersCreated).hasValue(0);
  }

  @Test
  void aPodThatDoesNotKnowItsNodeNameSaysHowToTellIt() {
    try (LogRecords log = new LogRecords(Placement.class)) {
      Placement placement = placed(pod, "--zone", "z");

      assertThat(placement).isEqualTo(new Placement("z", Map.of()));
      assertThat(readersCreated).hasValue(0);
      assertThat(log.lines())
          .containsExactly(
              "WARNING Node object not read (the node name is not known: set NODE_NAME from"
                  + " spec.nodeName (downward API)); zone and labels from --zone/--labels or their"
                  + " defaults: zone=z, labels={}");
    }
  }

  @Test
  void aNodeObjectThatCannotBeReadLeavesTheOptionsAndOneLogLine() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");
    NodeReader forbidden =
        node -> {
          throw new NodeUnreadableException("forbidden (HTTP 403): ...", null);
        };
    try (LogRecords log = new LogRecords(Placement.class)) {
      Placement placement =
          Placement.of(options(env, "--labels", "pool=a"), env, reader(forbidden), BOUND);

      assertThat(placement).isEqualTo(new Placement("default", Map.of("pool", "a")));
      assertThat(log.lines())
          .containsExactly(
              "WARNING Node object of gpu-7 not read (forbidden (HTTP 403): ...); zone and labels"
                  + " from --zone/--labels or their defaults: zone=default, labels={pool=a}");
    }
  }

  @Test
  void aReaderThatNeverReturnsIsLeftBehindAtTheBound() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");
    NodeReader hanging =
        node -> {
          while (true) {
            LockSupport.park();
          }
        };
    try (LogRecords log = new LogRecords(Placement.class)) {
      long started = System.nanoTime();
      Placement placement =
          Placement.of(options(env), env, reader(hanging), Duration.ofMillis(300));

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
      assertThat(placement).isEqualTo(new Placement("default", Map.of()));
      assertThat(log.lines())
          .containsExactly(
              "WARNING Node object of gpu-7 not read (the API server did not answer within"
                  + " PT0.3S); zone and labels from --zone/--labels or their defaults:"
                  + " zone=default, labels={}");
    }
  }

  @Test
  void aClientThatCannotBeConfiguredIsOneMoreReasonToFallBack() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");
    Supplier<NodeReader> broken =
        () -> {
          throw new IllegalStateException("cannot read /var/run/secrets/.../ca.crt");
        };
    try (LogRecords log = new LogRecords(Placement.class)) {
      Placement placement = Placement.of(options(env, "--zone", "z"), env, broken, BOUND);

      assertThat(placement).isEqualTo(new Placement("z", Map.of()));
      assertThat(log.lines())
          .containsExactly(
              "WARNING Node object of gpu-7 not read (java.lang.IllegalStateException: cannot read"
                  + " /var/run/secrets/.../ca.crt); zone and labels from --zone/--labels or their"
                  + " defaults: zone=z, labels={}");
    }
  }

  @Test
  void theLabelPrefixesKeepSomeLabelsButNotTheZone() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env, "--node-label-prefixes", "nvidia.com/, example.com/");

    assertThat(placement.zone()).isEqualTo("eu-west-1b");
    assertThat(placement.labels()).isEqualTo(Map.of("nvidia.com/gpu.product", "NVIDIA-H200"));
  }
}
