package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.database.PipelinedTransaction.Read;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.problem.ProblemException;
import io.fleetwave.controlplane.projection.NodeFacts;
import io.fleetwave.controlplane.projection.ReconcileRows;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ReconcileState;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads of the node projection for the API: a page of nodes with their GPUs, or one node; of the
 * projection as it is, or ({@link #asOf}) as it was at a past moment.
 */
@ApplicationScoped
public class NodeQueries {
  /** Node rows with their desired generation; a condition over {@code n} follows. */
  private static final String NODE_ROWS =
      "SELECT n.*, d.generation AS desired_generation, r.revoked_at, r.revoked_by FROM nodes n"
          + " LEFT JOIN desired_specs d ON d.node = n.name"
          + " LEFT JOIN revoked_nodes r ON r.node = n.name";

  /** The GPUs, MIG instances and reconcile states of the nodes named by the array $1. */
  static final String GPU_ROWS = "SELECT * FROM gpus WHERE node = ANY($1) ORDER BY node, gpu_index";

  static final String INSTANCE_ROWS =
      "SELECT * FROM gpu_instances WHERE node = ANY($1) ORDER BY node, gpu_index, placement_start";
  static final String RECONCILE_ROWS = "SELECT * FROM node_reconcile WHERE node = ANY($1)";

  private final Pool pool;

  /** The tables as they were at a past moment; null: as they are. */
  private final AsOfTables past;

  @Inject
  public NodeQueries(Pool pool) {
    this(pool, null);
  }

  private NodeQueries(Pool pool, AsOfTables past) {
    this.pool = pool;
    this.past = past;
  }

  /**
   * The same reads over the projection as it stood at {@code moment}, rebuilt from its history
   * ({@link AsOfTables}); the caller checks that the history reaches back that far.
   */
  public NodeQueries asOf(Instant moment) {
    return new NodeQueries(pool, new AsOfTables(moment));
  }

  /** What the SQL of a read starts with: nothing, or the WITH clause that stands for the past. */
  private String tables() {
    return past == null ? "" : past.with();
  }

  /**
   * One page of the nodes that match {@code where}: a condition over {@code nodes n} with its
   * positional parameters (the API's node filter builds it; the filter stays in the API so that
   * this package does not depend on the REST layer); each node as {@code view} says.
   */
  public Uni<Page<NodeView>> list(
      String where, List<Object> params, PageRequest paging, NodeListView view) {
    List<Object> pageParams = new ArrayList<>(params);
    pageParams.add(paging.size());
    pageParams.add(paging.offset());
    String pageSql =
        tables()
            + NODE_ROWS
            + " WHERE "
            + where
            + " ORDER BY n.name LIMIT $"
            + (pageParams.size() - 1)
            + " OFFSET $"
            + pageParams.size();
    String countSql = tables() + "SELECT count(*) AS total FROM nodes n WHERE " + where;
    Uni<Long> total =
        pool.preparedQuery(countSql)
            .execute(Tuple.from(params))
            .map(rows -> rows.iterator().next().getLong("total"));
    Uni<List<NodeView>> items =
        pool.preparedQuery(pageSql)
            .execute(Tuple.from(pageParams))
            .chain(rows -> complete(rows, view));
    return Uni.combine()
        .all()
        .unis(items, total)
        .with((nodes, count) -> new Page<>(nodes, paging.page(), paging.size(), count));
  }

  /** Where the tables stand for the node: its applied position; empty when they have no row. */
  public Uni<Optional<NodePosition>> position(String name) {
    return pool.preparedQuery("SELECT last_epoch, last_seq FROM nodes WHERE name = $1")
        .execute(Tuple.of(name))
        .map(
            rows ->
                Rows.first(rows)
                    .map(
                        row ->
                            new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq"))));
  }

  /** What {@code read} answers about a node this projection has seen; a 404 problem for another. */
  public <T> Uni<T> ifKnown(String name, Supplier<Uni<T>> read) {
    return find(name)
        .chain(
            found -> {
              if (found.isEmpty()) {
                throw ProblemException.unknownNode(name);
              }
              return read.get();
            });
  }

  /**
   * One node with its GPUs, instances and reconcile state: the four reads and the snapshot's BEGIN
   * and COMMIT go to PostgreSQL together, one round trip (the GPUs' reads waited for the node's row
   * before), and all four see the node as of one moment.
   */
  public Uni<Optional<NodeView>> find(String name) {
    if (past != null) {
      // The history only grows: the reads need no snapshot of their own.
      return pool.preparedQuery(tables() + NODE_ROWS + " WHERE n.name = $1")
          .execute(Tuple.of(name))
          .chain(rows -> complete(rows, NodeListView.FULL))
          .map(nodes -> nodes.stream().findFirst());
    }
    Tuple names = Tuple.tuple().addArrayOfString(new String[] {name});
    return PipelinedTransaction.readTogether(
            pool,
            new Read(NODE_ROWS + " WHERE n.name = $1", Tuple.of(name)),
            new Read(GPU_ROWS, names),
            new Read(INSTANCE_ROWS, names),
            new Read(RECONCILE_ROWS, names))
        .map(
            rows -> {
              List<Row> nodes = new ArrayList<>();
              rows.get(0).forEach(nodes::add);
              return assemble(
                      nodes, rows.get(1), rows.get(2), ReconcileRows.read(rows.get(3), List.of()))
                  .stream()
                  .findFirst();
            });
  }

  /** The names of a page's node rows, as the one array parameter of its per-page queries. */
  private static Tuple names(List<Row> nodes) {
    return Tuple.tuple()
        .addArrayOfString(nodes.stream().map(r -> r.getString("name")).toArray(String[]::new));
  }

  /** The reconcile state of each of these nodes that has one. */
  private Uni<Map<String, ReconcileState>> reconciles(Tuple names) {
    if (past != null) {
      return past.reconciles(pool, names);
    }
    return pool.preparedQuery(RECONCILE_ROWS)
        .execute(names)
        .map(rows -> ReconcileRows.read(rows, List.of()));
  }

  /** A page's node rows completed in the form asked for; an empty page needs no further query. */
  private Uni<List<NodeView>> complete(RowSet<Row> nodeRows, NodeListView form) {
    List<Row> nodes = new ArrayList<>();
    nodeRows.forEach(nodes::add);
    if (nodes.isEmpty()) {
      return Uni.createFrom().item(List.of());
    }
    return form == NodeListView.BRIEF ? withGpuModels(nodes) : withGpus(nodes);
  }

  private Uni<List<NodeView>> withGpus(List<Row> nodes) {
    Tuple names = names(nodes);
    Uni<RowSet<Row>> gpus = pool.preparedQuery(tables() + GPU_ROWS).execute(names);
    Uni<RowSet<Row>> instances = pool.preparedQuery(tables() + INSTANCE_ROWS).execute(names);
    Uni<Map<String, ReconcileState>> reconciles = reconciles(names);
    return Uni.combine()
        .all()
        .unis(gpus, instances, reconciles)
        .with(
            (gpuRows, instanceRows, reconcileStates) ->
                assemble(nodes, gpuRows, instanceRows, reconcileStates));
  }

  /** The nodes of {@code nodes} in full: their GPUs with their instances, and reconcile state. */
  static List<NodeView> assemble(
      List<Row> nodes,
      RowSet<Row> gpuRows,
      RowSet<Row> instanceRows,
      Map<String, ReconcileState> reconciles) {
    Map<String, List<NodeView.InstanceView>> instancesByGpu =
        Rows.grouped(
            instanceRows,
            NodeQueries::gpuKey,
            row ->
                new NodeView.InstanceView(
                    row.getString("profile"),
                    new NodeView.Placement(
                        row.getInteger("placement_start"), row.getInteger("placement_size"))));
    Map<String, List<NodeView.GpuView>> gpusByNode =
        Rows.grouped(
            gpuRows,
            row -> row.getString("node"),
            row ->
                new NodeView.GpuView(
                    row.getInteger("gpu_index"),
                    row.getString("uuid"),
                    row.getString("pci_bus_id"),
                    row.getString("pci_device_id"),
                    row.getString("product"),
                    row.getLong("memory_mib"),
                    row.getBoolean("mig_capable"),
                    row.getString("mig_mode"),
                    row.getString("mig_mode_pending"),
                    instancesByGpu.getOrDefault(gpuKey(row), List.of()),
                    row.getInteger("vfs_total"),
                    row.getInteger("vfs_enabled"),
                    row.getString("health")));
    return nodes(nodes, gpusByNode, null, reconciles);
  }

  /**
   * The brief form of a page: the GPUs counted by model in PostgreSQL (a few rows a node instead of
   * a row per GPU and per MIG instance).
   */
  private Uni<List<NodeView>> withGpuModels(List<Row> nodes) {
    Tuple names = names(nodes);
    Uni<RowSet<Row>> models =
        pool.preparedQuery(
                tables()
                    + "SELECT node, pci_device_id, min(product) AS product, count(*)::int AS gpus,"
                    + " (count(*) FILTER (WHERE mig_mode = 'enabled'))::int AS mig_enabled,"
                    + " (count(*) FILTER (WHERE health <> 'healthy'))::int AS not_healthy"
                    + " FROM gpus WHERE node = ANY($1) GROUP BY node, pci_device_id"
                    + " ORDER BY node, min(gpu_index)")
            .execute(names);
    Uni<Map<String, ReconcileState>> reconciles = reconciles(names);
    return Uni.combine()
        .all()
        .unis(models, reconciles)
        .with(
            (modelRows, reconcileStates) -> {
              Map<String, List<NodeView.GpuModelView>> byNode =
                  Rows.grouped(
                      modelRows,
                      row -> row.getString("node"),
                      row ->
                          new NodeView.GpuModelView(
                              row.getString("pci_device_id"),
                              row.getString("product"),
                              row.getInteger("gpus"),
                              row.getInteger("mig_enabled"),
                              row.getInteger("not_healthy")));
              return nodes(nodes, null, byNode, reconcileStates);
            });
  }

  /**
   * The nodes of {@code rows}, in order, with their reconcile states and either their GPUs ({@code
   * gpus}: the full form) or their GPUs counted by model ({@code gpuModels}: the brief form); the
   * other form's map is null, and so is that list of each node.
   */
  private static List<NodeView> nodes(
      List<Row> rows,
      Map<String, List<NodeView.GpuView>> gpus,
      Map<String, List<NodeView.GpuModelView>> gpuModels,
      Map<String, ReconcileState> reconciles) {
    return rows.stream()
        .map(
            row -> {
              String name = row.getString("name");
              return node(row, ofNode(gpus, name), ofNode(gpuModels, name), reconciles.get(name));
            })
        .toList();
  }

  private static <T> List<T> ofNode(Map<String, List<T>> byNode, String node) {
    return byNode == null ? null : byNode.getOrDefault(node, List.of());
  }

  private static NodeView node(
      Row row,
      List<NodeView.GpuView> gpus,
      List<NodeView.GpuModelView> gpuModels,
      ReconcileState reconcile) {
    OffsetDateTime lastSeen = row.getOffsetDateTime("last_seen");
    OffsetDateTime revokedAt = row.getOffsetDateTime("revoked_at");
    Long desired = row.getLong("desired_generation");
    Convergence convergence = Convergence.of(desired, reconcile);
    return new NodeView(
        row.getString("name"),
        NodeFacts.read(row),
        lastSeen == null ? null : lastSeen.toInstant(),
        desired,
        reconcile == null ? 0 : reconcile.appliedGeneration(),
        convergence.converged(),
        convergence.reason(),
        revokedAt != null,
        revokedAt == null ? null : revokedAt.toInstant(),
        row.getString("revoked_by"),
        gpus,
        gpuModels);
  }

  private static String gpuKey(Row row) {
    return row.getString("node") + "#" + row.getInteger("gpu_index");
  }
}
