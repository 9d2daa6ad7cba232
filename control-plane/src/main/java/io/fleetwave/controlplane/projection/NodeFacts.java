package io.fleetwave.controlplane.projection;

import io.fleetwave.events.node.NodeRegistered;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's facts from its newest {@link NodeRegistered} as the nodes table holds them (host_kind to
 * reasons, the same columns in registration_history): the host kind and driver provider by their
 * wire names, labels and reasons as the jsonb maps read back. One home for that mapping: the
 * projection writes it, the read model reads it back, and the in-memory fleet view folds it from
 * the event, so that a node read from the tables and one folded from the log are equal. Every fact
 * is null (the maps empty) before the node's first NodeRegistered.
 */
public record NodeFacts(
    String hostKind,
    String osId,
    String osVersion,
    String kernel,
    Boolean readOnlyRoot,
    Boolean systemd,
    String driverRoot,
    String deviceRoot,
    String driverProvider,
    String driverVersion,
    String zone,
    Map<String, String> labels,
    Map<String, String> reasons) {

  /** A node with no NodeRegistered yet: the row the projection ensures for it. */
  public static final NodeFacts NONE =
      new NodeFacts(
          null, null, null, null, null, null, null, null, null, null, null, Map.of(), Map.of());

  /** The facts of a NodeRegistered, as the columns hold them once written. */
  public static NodeFacts of(NodeRegistered registered) {
    return new NodeFacts(
        registered.hostKind().wireName(),
        registered.osId(),
        registered.osVersion(),
        registered.kernel(),
        registered.readOnlyRoot(),
        registered.systemd(),
        registered.driverRoot(),
        registered.deviceRoot(),
        registered.driverProvider().wireName(),
        registered.driverVersion(),
        registered.zone(),
        new TreeMap<>(registered.labels()),
        new TreeMap<>(registered.reasons()));
  }

  /** The facts of a row with the columns of nodes (a row of nodes, or of registration_history). */
  public static NodeFacts read(Row row) {
    return new NodeFacts(
        row.getString("host_kind"),
        row.getString("os_id"),
        row.getString("os_version"),
        row.getString("kernel"),
        row.getBoolean("read_only_root"),
        row.getBoolean("systemd"),
        row.getString("driver_root"),
        row.getString("device_root"),
        row.getString("driver_provider"),
        row.getString("driver_version"),
        row.getString("zone"),
        strings(row.getJsonObject("labels")),
        strings(row.getJsonObject("reasons")));
  }

  /**
   * The parameters that write node {@code node}'s facts: $1 the node, then host_kind to reasons in
   * the order of this record.
   */
  Tuple tuple(String node) {
    return Tuple.from(
        Arrays.asList(
            node,
            hostKind,
            osId,
            osVersion,
            kernel,
            readOnlyRoot,
            systemd,
            driverRoot,
            deviceRoot,
            driverProvider,
            driverVersion,
            zone,
            ProjectionWriter.json(labels),
            ProjectionWriter.json(reasons)));
  }

  private static Map<String, String> strings(JsonObject json) {
    Map<String, String> map = new TreeMap<>();
    if (json != null) {
      json.forEach(entry -> map.put(entry.getKey(), String.valueOf(entry.getValue())));
    }
    return map;
  }
}
