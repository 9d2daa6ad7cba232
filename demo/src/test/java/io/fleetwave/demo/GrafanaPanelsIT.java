package io.fleetwave.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.demo.fixtures.GrafanaDashboard;
import io.fleetwave.demo.fixtures.RolloutFleetProfile;
import io.fleetwave.demo.fixtures.RolloutsApi;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every panel and variable of the Grafana dashboards in deploy/grafana runs its SQL against the
 * PostgreSQL the control plane projects the simulated fleet into, after a MIG rollout finished on
 * the fleet's {@code report} pool: a schema change that breaks a panel breaks the build, and the
 * panels that must show the fleet and the rollout do.
 */
@QuarkusTest
@TestProfile(RolloutFleetProfile.class)
class GrafanaPanelsIT {
  private static final Path DASHBOARDS = Path.of("../deploy/grafana/dashboards");

  /** Panels that list problems: empty when the fleet has none. */
  private static final Set<String> MAY_BE_EMPTY = Set.of("Nodes not at their desired state");

  @BeforeEach
  void fleetIsProjectedAndTheReportRolloutDone() {
    RolloutFleetProfile.awaitProjected("report", 2);
    if (ProjectionRows.count("SELECT count(*) FROM rollouts WHERE name = 'report-mig'") > 0) {
      return;
    }
    String id =
        RolloutsApi.create(
            """
                {"name": "report-mig", "target": {"selector": "pool=report"},
                 "change": {"migConfig": "all-balanced"},
                 "strategy": {"waves": ["100%"], "maxUnavailable": "100%", "maxZonesInFlight": 1,
                              "soakSeconds": 0, "manualPromotion": false, "nodeTimeoutSeconds": 300,
                              "failureThreshold": {"perWave": "50%", "total": "50%", "action": "pause"}}}
                """);
    RolloutsApi.awaitState(id, "completed", Duration.ofSeconds(120));
  }

  @Test
  void everyPanelOfEveryDashboardRunsAndTheFleetPanelsShowTheFleet() throws Exception {
    List<GrafanaDashboard> dashboards = GrafanaDashboard.all(DASHBOARDS);
    assertThat(dashboards).extracting(GrafanaDashboard::uid).contains("fleetwave-fleet");
    List<String> ran = new ArrayList<>();
    try (Connection connection = ProjectionRows.connect()) {
      for (GrafanaDashboard dashboard : dashboards) {
        Map<String, List<String>> variables = dashboard.resolveVariables(connection);
        for (GrafanaDashboard.Target target : dashboard.targets()) {
          List<Map<String, Object>> rows = target.run(connection, variables);
          ran.add(dashboard.uid() + " / " + target.panel());
          if (dashboard.uid().equals("fleetwave-fleet") && !MAY_BE_EMPTY.contains(target.panel())) {
            assertThat(rows)
                .as("panel '%s' of %s shows the simulated fleet", target.panel(), dashboard.uid())
                .isNotEmpty();
          }
        }
      }
    }
    assertThat(ran).hasSizeGreaterThanOrEqualTo(20);
  }

  @Test
  void theFleetPanelsCountTheFleetAndTheVersionDistributionShowsTheNewLayoutWithoutDrift()
      throws Exception {
    GrafanaDashboard fleet = GrafanaDashboard.load(DASHBOARDS.resolve("fleet.json"));
    try (Connection connection = ProjectionRows.connect()) {
      Map<String, List<String>> all = fleet.resolveVariables(connection);
      assertThat(all.get("zone")).containsExactlyInAnyOrder("zone-a", "zone-b", "zone-c");
      assertThat(fleet.target("Nodes").run(connection, all))
          .singleElement()
          .satisfies(row -> assertThat(((Number) row.get("nodes")).longValue()).isEqualTo(140));

      List<Map<String, Object>> distribution =
          fleet.target("Version distribution").run(connection, all);
      assertThat(distribution)
          .filteredOn(row -> "report".equals(row.get("pool")))
          .singleElement()
          .satisfies(
              row -> {
                assertThat((String) row.get("mig_layout")).contains("3g.40gb");
                assertThat(((Number) row.get("nodes")).longValue()).isEqualTo(2);
                assertThat(((Number) row.get("drifted")).longValue()).isZero();
              });

      Map<String, List<String>> onlyReport =
          Map.of("zone", List.of("zone-a"), "pool", List.of("report"), "node", all.get("node"));
      assertThat(fleet.target("GPUs in MIG mode").run(connection, onlyReport))
          .singleElement()
          .satisfies(row -> assertThat(((Number) row.get("mig_gpus")).longValue()).isEqualTo(2));
    }
  }

  @Test
  void theRolloutPanelsShowTheFinishedRollout() throws Exception {
    GrafanaDashboard rollouts = GrafanaDashboard.load(DASHBOARDS.resolve("rollouts.json"));
    try (Connection connection = ProjectionRows.connect()) {
      Map<String, List<String>> none = rollouts.resolveVariables(connection);
      assertThat(rollouts.target("Rollouts").run(connection, none))
          .filteredOn(row -> "report-mig".equals(row.get("name")))
          .singleElement()
          .satisfies(
              row -> {
                assertThat(row.get("state")).isEqualTo("completed");
                assertThat(((Number) row.get("succeeded")).longValue()).isEqualTo(2);
                assertThat(((Number) row.get("failed")).longValue()).isZero();
              });
      assertThat(rollouts.target("Nodes finished per 5 minutes").run(connection, none))
          .extracting(row -> row.get("metric"))
          .contains("succeeded");
    }
  }
}
