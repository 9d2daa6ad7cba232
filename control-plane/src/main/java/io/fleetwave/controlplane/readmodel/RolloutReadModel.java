package io.fleetwave.controlplane.readmodel;

import io.fleetwave.core.driver.NodeDriverFacts;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.HostKind;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** The projection as the rollout engine reads it while it drives nodes. */
public final class RolloutReadModel {
  private RolloutReadModel() {}

  /** The progress of those of {@code nodes} the projection knows. */
  public static Uni<List<NodeProgress>> progress(SqlClient client, Collection<String> nodes) {
    return client
        .preparedQuery(
            "SELECT n.name, n.last_epoch, n.last_seq, n.driver_version, r.applied_generation, r.failure_generation,"
                + " r.failure_step, r.failure_reason, r.failure_holder, r.rejection_generation,"
                + " r.rejection_code, r.rejection_reason, (SELECT string_agg('GPU ' ||"
                + " g.gpu_index || ' ' || g.health, ', ' ORDER BY g.gpu_index) FROM gpus g"
                + " WHERE g.node = n.name AND g.health <> 'healthy') AS sick FROM nodes n LEFT"
                + " JOIN node_reconcile r ON r.node = n.name WHERE n.name = ANY($1)")
        .execute(Tuple.tuple().addArrayOfString(nodes.toArray(String[]::new)))
        .map(
            rows -> {
              List<NodeProgress> out = new ArrayList<>();
              rows.forEach(row -> out.add(progress(row)));
              return out;
            });
  }

  /**
   * The facts a driver is resolved from, for a node the projection knows; fails with {@link
   * java.util.NoSuchElementException} for one it does not.
   */
  public static Uni<NodeDriverFacts> driverFacts(SqlClient client, String node) {
    return client
        .preparedQuery(
            "SELECT host_kind, os_id, os_version, kernel, driver_provider, driver_version FROM"
                + " nodes WHERE name = $1")
        .execute(Tuple.of(node))
        .map(
            rows -> {
              Row row = rows.iterator().next();
              return new NodeDriverFacts(
                  WireNamed.parse(HostKind.class, row.getString("host_kind")),
                  row.getString("os_id"),
                  row.getString("os_version"),
                  row.getString("kernel"),
                  WireNamed.parse(DriverProvider.class, row.getString("driver_provider")),
                  row.getString("driver_version"));
            });
  }

  private static NodeProgress progress(Row row) {
    return new NodeProgress(
        row.getString("name"),
        new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq")),
        orZero(row.getLong("applied_generation")),
        orZero(row.getLong("failure_generation")),
        row.getString("failure_step"),
        row.getString("failure_reason"),
        row.getString("failure_holder"),
        orZero(row.getLong("rejection_generation")),
        row.getString("rejection_code"),
        row.getString("rejection_reason"),
        row.getString("driver_version"),
        row.getString("sick"));
  }

  private static long orZero(Long value) {
    return value == null ? 0 : value;
  }
}
