package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The PrometheusRule's alerts read metrics that exist: the control plane's own (the meters its code
 * builds, named as its Prometheus registry names them) and Prometheus' {@code up}.
 */
class AlertsTest {
  /** The tests that check the control plane's /q/metrics serves some metrics, by name. */
  private static final List<Path> METRICS_TESTS =
      List.of(
          Path.of("control-plane/src/test/java/io/fleetwave/controlplane/api/OperationsIT.java"),
          Path.of("control-plane/src/test/java/io/fleetwave/controlplane/api/DriftApiIT.java"),
          Path.of("control-plane/src/test/java/io/fleetwave/controlplane/api/RolloutsApiIT.java"));

  private static final Set<String> PROMQL_WORDS =
      Set.of(
          "sum",
          "max",
          "min",
          "avg",
          "count",
          "rate",
          "increase",
          "absent",
          "and",
          "or",
          "unless",
          "on",
          "by",
          "without",
          "ignoring",
          "group_left",
          "group_right",
          "bool");

  private final Rendered install = Kustomize.render("install");

  @Test
  void theAlertsTheBriefAsksForAreThere() {
    assertThat(alerts().keySet())
        .contains(
            "FleetwaveControlPlaneDown",
            "FleetwaveProjectionLagging",
            "FleetwaveNoRolloutEngineLeader",
            "FleetwaveProjectionStalled",
            "FleetwaveAgentsSilent",
            "FleetwaveRolloutPausedByThreshold",
            "FleetwaveRolloutNodeStuck",
            "FleetwaveNodesChangedOutsideFleetwave",
            "FleetwaveNodesNotConverged",
            "FleetwaveNodesSilentAndDrifting");
  }

  @Test
  void everyAlertReadsAMetricThatExists() throws IOException {
    Set<String> known = new TreeSet<>();
    known.add("up");
    known.addAll(ControlPlaneMeters.prometheusNames(repositoryRoot()));
    List<String> unknown = new ArrayList<>();
    alerts()
        .forEach(
            (alert, expr) -> {
              for (String metric : metrics(expr)) {
                if (!known.contains(metric)) {
                  unknown.add(alert + " reads " + metric);
                }
              }
            });
    assertThat(unknown).as("metrics not among %s", known).isEmpty();
  }

  /** The names read from the code are those the running control plane serves. */
  @Test
  void everyMetricTheControlPlaneIsTestedToServeIsAmongThoseReadFromItsCode() throws IOException {
    assertThat(ControlPlaneMeters.prometheusNames(repositoryRoot()))
        .containsAll(metricsAssertedByTests());
  }

  /**
   * Since CloudNativePG 1.29.1 custom queries run as cnpg_metrics_exporter, which cannot read the
   * lease table: the engine's leadership comes from the control plane's own gauge.
   */
  @Test
  void theNoLeaderAlertReadsTheEnginesLeadershipGaugeWhileAControlPlaneIsUp() {
    String expr = alerts().get("FleetwaveNoRolloutEngineLeader");
    assertThat(metrics(expr)).containsExactlyInAnyOrder("fleetwave_rollout_engine_leading", "up");
    assertThat(expr)
        .contains("sum(fleetwave_rollout_engine_leading")
        .contains("and on() sum(up{job=\"fleetwave-control-plane\"}) > 0");
    for (GenericKubernetesResource cluster : install.custom("Cluster")) {
      Object monitoring = Rendered.field(cluster, "spec").getOrDefault("monitoring", Map.of());
      assertThat(((Map<?, ?>) monitoring).keySet().stream().map(String::valueOf).toList())
          .as("custom queries of %s", cluster.getMetadata().getName())
          .doesNotContain("customQueriesConfigMap", "customQueriesSecret");
    }
  }

  private Map<String, String> alerts() {
    GenericKubernetesResource rule = install.custom("PrometheusRule", "fleetwave");
    Map<String, String> alerts = new LinkedHashMap<>();
    for (Map<String, Object> group : list(Rendered.field(rule, "spec").get("groups"))) {
      for (Map<String, Object> r : list(group.get("rules"))) {
        alerts.put((String) r.get("alert"), String.valueOf(r.get("expr")));
      }
    }
    return alerts;
  }

  /** Metric names in a PromQL expression: identifiers outside label matchers and ranges. */
  static Set<String> metrics(String expr) {
    String bare =
        expr.replaceAll("\\{[^}]*}", " ")
            .replaceAll("\\[[^]]*]", " ")
            .replaceAll("\"[^\"]*\"", " ")
            .replaceAll("\\bon\\s*\\([^)]*\\)", " ")
            .replaceAll("\\bby\\s*\\([^)]*\\)", " ");
    Set<String> names = new TreeSet<>();
    Matcher identifier = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*").matcher(bare);
    while (identifier.find()) {
      String word = identifier.group();
      if (!PROMQL_WORDS.contains(word)) {
        names.add(word);
      }
    }
    return names;
  }

  private static Set<String> metricsAssertedByTests() throws IOException {
    Set<String> names = new TreeSet<>();
    for (Path test : METRICS_TESTS) {
      Matcher name =
          Pattern.compile("\"(fleetwave_[a-z_]+)[\" {]")
              .matcher(Files.readString(repositoryRoot().resolve(test)));
      while (name.find()) {
        names.add(name.group(1));
      }
    }
    assertThat(names).as("metric names asserted by %s", METRICS_TESTS).isNotEmpty();
    return names;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return (List<Map<String, Object>>) value;
  }

  private static Path repositoryRoot() {
    return Kustomize.deployDir().getParent();
  }
}
