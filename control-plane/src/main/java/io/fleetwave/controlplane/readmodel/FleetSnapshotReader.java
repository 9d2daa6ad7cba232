package io.fleetwave.controlplane.readmodel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.spec.store.SpecFacts;
import io.fleetwave.core.driver.NodeDriverFacts;
import io.fleetwave.core.rollout.plan.FleetNode;
import io.fleetwave.core.rollout.plan.FleetSnapshot;
import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fleet as the planner sees it, read from the projection in one statement: every registered
 * node (one whose NodeRegistered has been applied) with its facts, labels and GPUs, the GPUs with
 * their MIG instances aggregated as JSON inside the same query, and its desired spec with whether
 * the node has applied it (where it is going, which the planner compares with as well).
 */
@ApplicationScoped
public class FleetSnapshotReader {
  private static final TypeReference<List<Gpu>> GPUS = new TypeReference<>() {};

  static final String SQL =
      """
      SELECT n.name, n.host_kind, n.os_id, n.os_version, n.kernel, n.driver_provider,
             n.driver_version, n.zone, n.labels,
             COALESCE((
               SELECT json_agg(json_build_object(
                        'index', g.gpu_index, 'uuid', g.uuid, 'pciBusId', g.pci_bus_id,
                        'pciDeviceId', g.pci_device_id, 'product', g.product,
                        'memoryMiB', g.memory_mib, 'migCapable', g.mig_capable,
                        'migMode', g.mig_mode, 'migModePending', g.mig_mode_pending,
                        'vfsTotal', g.vfs_total, 'vfsEnabled', g.vfs_enabled, 'health', g.health,
                        'instances', COALESCE((
                          SELECT json_agg(json_build_object(
                                   'profile', i.profile, 'placementStart', i.placement_start,
                                   'placementSize', i.placement_size) ORDER BY i.placement_start)
                            FROM gpu_instances i
                           WHERE i.node = g.node AND i.gpu_index = g.gpu_index), '[]'::json))
                      ORDER BY g.gpu_index)
                 FROM gpus g WHERE g.node = n.name), '[]'::json)::text AS gpus,
             EXISTS (SELECT 1 FROM revoked_nodes r WHERE r.node = n.name) AS revoked,
             d.spec AS desired,
             coalesce(d.generation, 0) > coalesce(c.applied_generation, 0) AS spec_pending
        FROM nodes n
        LEFT JOIN desired_specs d ON d.node = n.name
        LEFT JOIN node_reconcile c ON c.node = n.name
       WHERE n.host_kind IS NOT NULL
       ORDER BY n.name
      """;

  private final Pool pool;
  private final ObjectMapper json;

  public FleetSnapshotReader(Pool pool, ObjectMapper json) {
    this.pool = pool;
    this.json = json;
  }

  public Uni<FleetSnapshot> snapshot() {
    return pool.query(SQL)
        .execute()
        // Off the event loop: a fleet of 100,000 nodes is as many rows to read into nodes.
        .emitOn(Infrastructure.getDefaultWorkerPool())
        .map(
            rows -> {
              List<FleetNode> nodes = new ArrayList<>();
              Set<String> revoked = new HashSet<>();
              rows.forEach(
                  row -> {
                    nodes.add(node(row));
                    if (row.getBoolean("revoked")) {
                      revoked.add(row.getString("name"));
                    }
                  });
              return new FleetSnapshot(nodes, revoked);
            });
  }

  private FleetNode node(Row row) {
    String driverProvider = row.getString("driver_provider");
    HostKind hostKind = WireNamed.parse(HostKind.class, row.getString("host_kind"));
    return new FleetNode(
        row.getString("name"),
        hostKind,
        row.getString("zone"),
        labels(row.getJsonObject("labels")),
        new NodeDriverFacts(
            hostKind,
            row.getString("os_id"),
            row.getString("os_version"),
            row.getString("kernel"),
            driverProvider == null ? null : WireNamed.parse(DriverProvider.class, driverProvider),
            row.getString("driver_version")),
        gpus(row),
        desired(row),
        row.getBoolean("spec_pending"));
  }

  private static NodeSpec desired(Row row) {
    JsonObject spec = row.getJsonObject("desired");
    return spec == null ? null : SpecFacts.decode(spec);
  }

  private List<Gpu> gpus(Row row) {
    try {
      return json.readValue(row.getString("gpus"), GPUS);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "the projected GPUs of node " + row.getString("name") + " do not read back", e);
    }
  }

  private static Map<String, String> labels(JsonObject labels) {
    Map<String, String> out = new TreeMap<>();
    if (labels != null) {
      labels.forEach(entry -> out.put(entry.getKey(), String.valueOf(entry.getValue())));
    }
    return out;
  }
}
