package io.fleetwave.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.fleetwave.agent.kubernetes.NodeReader;
import io.fleetwave.agent.kubernetes.NodeUnreadableException;
import io.fleetwave.testsupport.logging.LogRecords;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

  private static Map<String, String> without(Map<String, String> env, String key) {
    Map<String, String> copy = new HashMap<>(env);
    copy.remove(key);
    return copy;
  }

  /**
   * In a pod that knows its node name: the Node object gives the zone and the labels, and each
   * option given wins over its part (the prefixes option keeps some of the labels, never the zone).
   */
  static Stream<Arguments> optionsOverTheNodeObject() {
    return Stream.of(
        arguments(List.of(), "eu-west-1b", NODE_LABELS),
        arguments(List.of("--zone", "rack-12"), "rack-12", NODE_LABELS),
        arguments(List.of("--labels", "pool=training"), "eu-west-1b", Map.of("pool", "training")),
        arguments(
            List.of("--node-label-prefixes", "nvidia.com/, example.com/"),
            "eu-west-1b",
            Map.of("nvidia.com/gpu.product", "NVIDIA-H200")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void optionsOverTheNodeObject(List<String> args, String zone, Map<String, String> labels) {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env, args.toArray(String[]::new));

    assertThat(placement).isEqualTo(new Placement(zone, labels));
  }

  @Test
  void withZoneAndLabelsGivenTheNodeObjectIsNotRead() {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");

    Placement placement = placed(env, "--zone", "z", "--labels", "a=b");

    assertThat(placement).isEqualTo(new Placement("z", Map.of("a", "b")));
    assertThat(readersCreated).hasValue(0);
  }

  /**
   * Environments, made from a pod that knows its node name, in which no Node object is read: off
   * Kubernetes, or half a pod.
   */
  static Stream<Arguments> offKubernetes() {
    return Stream.of(
        arguments("off Kubernetes", env(pod -> Map.of("NODE_NAME", "gpu-7"))),
        arguments(
            "a pod without its service account token",
            env(pod -> with(pod, "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", "/absent"))),
        arguments(
            "a token without KUBERNETES_SERVICE_HOST",
            env(pod -> without(pod, "KUBERNETES_SERVICE_HOST"))));
  }

  private static UnaryOperator<Map<String, String>> env(
      UnaryOperator<Map<String, String>> fromPod) {
    return fromPod;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void offKubernetes(String where, UnaryOperator<Map<String, String>> fromPod) {
    Map<String, String> env = fromPod.apply(with(pod, "NODE_NAME", "gpu-7"));
    try (LogRecords log = new LogRecords(Placement.class)) {
      Placement placement = placed(env);

      assertThat(placement).isEqualTo(new Placement("default", Map.of()));
      assertThat(readersCreated).hasValue(0);
      assertThat(log.lines()).isEmpty();
    }
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

  /**
   * A Node object that is not read, for each reason, leaves the options (or their defaults) and one
   * log line naming the reason; a reader that never returns is left behind at the bound.
   */
  static Stream<Arguments> aNodeObjectNotReadLeavesTheOptionsAndOneLogLine() {
    NodeReader forbidden =
        node -> {
          throw new NodeUnreadableException("forbidden (HTTP 403): ...", null);
        };
    NodeReader hanging =
        node -> {
          while (true) {
            LockSupport.park();
          }
        };
    Supplier<NodeReader> unconfigurable =
        () -> {
          throw new IllegalStateException("cannot read /var/run/secrets/.../ca.crt");
        };
    return Stream.of(
        arguments(
            "forbidden",
            (Supplier<NodeReader>) () -> forbidden,
            BOUND,
            List.of("--labels", "pool=a"),
            new Placement("default", Map.of("pool", "a")),
            "WARNING Node object of gpu-7 not read (forbidden (HTTP 403): ...); zone and labels"
                + " from --zone/--labels or their defaults: zone=default, labels={pool=a}"),
        arguments(
            "never answered",
            (Supplier<NodeReader>) () -> hanging,
            Duration.ofMillis(300),
            List.of(),
            new Placement("default", Map.of()),
            "WARNING Node object of gpu-7 not read (the API server did not answer within"
                + " PT0.3S); zone and labels from --zone/--labels or their defaults:"
                + " zone=default, labels={}"),
        arguments(
            "no client",
            unconfigurable,
            BOUND,
            List.of("--zone", "z"),
            new Placement("z", Map.of()),
            "WARNING Node object of gpu-7 not read (java.lang.IllegalStateException: cannot read"
                + " /var/run/secrets/.../ca.crt); zone and labels from --zone/--labels or their"
                + " defaults: zone=z, labels={}"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void aNodeObjectNotReadLeavesTheOptionsAndOneLogLine(
      String why,
      Supplier<NodeReader> reader,
      Duration bound,
      List<String> args,
      Placement expected,
      String logLine) {
    Map<String, String> env = with(pod, "NODE_NAME", "gpu-7");
    try (LogRecords log = new LogRecords(Placement.class)) {
      long started = System.nanoTime();
      Placement placement =
          Placement.of(options(env, args.toArray(String[]::new)), env, reader, bound);

      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
      assertThat(placement).isEqualTo(expected);
      assertThat(log.lines()).containsExactly(logLine);
    }
  }
}
