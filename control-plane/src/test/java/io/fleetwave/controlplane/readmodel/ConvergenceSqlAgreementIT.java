package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.core.projection.ReconcileState;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * "Converged" means the same in the dashboards' SQL ({@code reports.node_inventory.converged},
 * which Grafana panels count) as in the API ({@link Convergence#of} over the state the read model
 * reads): for random desired generations and reconcile rows (applied, failed at some generation,
 * rejected, waiting to re-apply after a boot, no row at all), both say the same of every node.
 */
class ConvergenceSqlAgreementIT {
  private static final Duration BOUND = Duration.ofSeconds(30);

  /** One node's inputs; a null generation means no row (no desired spec, no failure, ...). */
  record NodeRows(
      Long desired,
      boolean reconcileRow,
      long accepted,
      long applied,
      Long failure,
      Long rejection,
      boolean bootPending) {}

  private static MigratedPool database;
  private static Pool pool;

  @BeforeContainer
  static void startPostgresWithTheSchema() {
    database = MigratedPool.ofOwnPostgres();
    pool = database.pool();
  }

  @AfterContainer
  static void stop() {
    if (database != null) {
      database.close();
    }
  }

  @Property(tries = 150)
  void theReportViewAndTheReadModelAgreeOnEveryNode(@ForAll("fleets") List<NodeRows> fleet) {
    replaceFleet(fleet);
    Map<String, Boolean> bySql = new TreeMap<>();
    for (Row row :
        pool.query("SELECT node, converged FROM reports.node_inventory")
            .execute()
            .await()
            .atMost(BOUND)) {
      bySql.put(row.getString("node"), row.getBoolean("converged"));
    }
    Map<String, Boolean> byReadModel = new TreeMap<>();
    for (int i = 0; i < fleet.size(); i++) {
      ReconcileState state = FleetReadModel.reconcile(pool, name(i)).await().atMost(BOUND);
      byReadModel.put(name(i), Convergence.of(fleet.get(i).desired(), state).converged());
    }
    assertThat(bySql).as("converged per node for %s", fleet).isEqualTo(byReadModel);
  }

  private static void replaceFleet(List<NodeRows> fleet) {
    pool.query("DELETE FROM desired_specs; DELETE FROM nodes").execute().await().atMost(BOUND);
    for (int i = 0; i < fleet.size(); i++) {
      NodeRows node = fleet.get(i);
      String name = name(i);
      pool.preparedQuery(
              "INSERT INTO nodes (name, host_kind, last_epoch, last_seq) VALUES ($1, 'ubuntu', 0, 0)")
          .execute(Tuple.of(name))
          .await()
          .atMost(BOUND);
      if (node.desired() != null) {
        pool.preparedQuery(
                "INSERT INTO desired_specs (node, generation, spec, updated_at)"
                    + " VALUES ($1, $2, '{}'::jsonb, now())")
            .execute(Tuple.of(name, node.desired()))
            .await()
            .atMost(BOUND);
      }
      if (node.reconcileRow()) {
        pool.preparedQuery(
                "INSERT INTO node_reconcile (node, accepted_generation, applied_generation,"
                    + " boot_pending, failure_generation, failure_step, failure_reason,"
                    + " rejection_generation, rejection_code, rejection_reason)"
                    + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)")
            .execute(
                Tuple.from(
                    Arrays.asList(
                        name,
                        node.accepted(),
                        node.applied(),
                        node.bootPending(),
                        node.failure(),
                        node.failure() == null ? null : "create-instance",
                        node.failure() == null ? null : "simulated",
                        node.rejection(),
                        node.rejection() == null ? null : "stale",
                        node.rejection() == null ? null : "simulated")))
            .await()
            .atMost(BOUND);
      }
    }
  }

  private static String name(int index) {
    return "node-" + index;
  }

  @Provide
  Arbitrary<List<NodeRows>> fleets() {
    Arbitrary<Long> generation = Arbitraries.longs().between(0, 4);
    Arbitrary<Long> positive = Arbitraries.longs().between(1, 4);
    Arbitrary<NodeRows> node =
        Combinators.combine(
                positive.injectNull(0.3),
                Arbitraries.of(true, true, true, false),
                generation,
                generation,
                generation.injectNull(0.5),
                generation.injectNull(0.6),
                Arbitraries.of(false, false, true))
            .as(NodeRows::new);
    return node.list().ofMinSize(1).ofMaxSize(12);
  }
}
