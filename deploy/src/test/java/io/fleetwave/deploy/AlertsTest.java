package io.fleetwave.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
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
 * The PrometheusRule's alerts read metrics that exist: the control plane's own (those its
 * OperationsIT checks /q/metrics serves), Prometheus' {@code up}, and the CloudNativePG custom
 * query installed alongside.
 */
class AlertsTest {
  /** The tests that check the control plane serves its metrics, by name. */
  private static final List<Path> METRICS_TESTS =
      List.of(
          Path.of("control-plane/src/test/java/io/fleetwave/controlplane/api/OperationsIT.java"),
          Path.of("control-plane/src/test/java/io/fleetwave/controlplane/api/RolloutsApiIT.java"));

  private static final Path ENGINE_LEADERSHIP =
      Path.of(
          "control-plane/src/main/java/io/fleetwave/controlplane/rollout/engine/EngineLeadership.java");
  private static final Path LEASE_MIGRATION =
      Path.of("migrations/src/main/resources/db/migration/V12__engine_leader_lease.sql");
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
            "FleetwaveRolloutNodeStuck");
  }

  @Test
  void everyAlertReadsAMetricThatExists() throws IOException {
    Set<String> known = new TreeSet<>();
    known.add("up");
    known.addAll(controlPlaneMetrics());
    known.addAll(cloudNativePgCustomMetrics());
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

  @Test
  void theEngineLeaderQueryReadsTheLeaseTheEngineTakes() throws IOException {
    String source = Files.readString(repositoryRoot().resolve(ENGINE_LEADERSHIP));
    Matcher table = Pattern.compile("UPDATE (\\w+) SET term = term \\+ 1").matcher(source);
    assertThat(table.find()).as("the lease table in %s", ENGINE_LEADERSHIP).isTrue();
    String migration = Files.readString(repositoryRoot().resolve(LEASE_MIGRATION));
    assertThat(migration)
        .contains("CREATE TABLE " + table.group(1) + " (")
        .containsPattern("expires_at +timestamptz");
    assertThat(queries())
        .contains("FROM public." + table.group(1))
        .contains("WHERE expires_at OPERATOR(pg_catalog.>) pg_catalog.now()");
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

  private static Set<String> controlPlaneMetrics() throws IOException {
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

  /** cnpg_QUERY_COLUMN for every GAUGE or COUNTER column of the custom queries. */
  private Set<String> cloudNativePgCustomMetrics() {
    Set<String> names = new TreeSet<>();
    String query = null;
    for (String line : queries().lines().toList()) {
      if (line.matches("[a-z_]+:")) {
        query = line.substring(0, line.length() - 1);
      } else if (line.matches("\\s+- [a-z_]+:") && query != null) {
        names.add("cnpg_" + query + "_" + line.strip().substring(2, line.strip().length() - 1));
      }
    }
    return names;
  }

  private String queries() {
    ConfigMap queries = install.one(ConfigMap.class, "fleetwave-db-monitoring");
    return queries.getData().get("queries");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object value) {
    return (List<Map<String, Object>>) value;
  }

  private static Path repositoryRoot() {
    return Kustomize.deployDir().getParent();
  }
}
