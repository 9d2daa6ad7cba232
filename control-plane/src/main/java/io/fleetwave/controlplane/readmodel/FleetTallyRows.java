package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.projection.ReconcileRows;
import io.fleetwave.controlplane.readmodel.FleetTally.HeldNode;
import io.fleetwave.core.projection.NodePosition;
import io.fleetwave.core.projection.ReconcileState;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The live tables as a {@link FleetTally} holds them: every node row with its position, its GPU
 * rows with their instances and its reconcile state, read in one snapshot a page of nodes at a time
 * (at 100,000 nodes one result of 800,000 GPU rows would be held and mapped at once, on an event
 * loop). Each node is mapped as {@link NodeQueries#find} maps it, without its desired spec and
 * revocation (what the control facts add, held apart).
 */
@ApplicationScoped
public class FleetTallyRows {
  /** Nodes a page: their GPU rows are about eight times as many. */
  private static final int PAGE = 2_000;

  /** The node rows with the columns NodeQueries' mapping reads, the control facts' left empty. */
  private static final String NODES =
      "SELECT n.*, NULL::bigint AS desired_generation, NULL::timestamptz AS revoked_at,"
          + " NULL::text AS revoked_by FROM nodes n WHERE n.name > $1 ORDER BY n.name LIMIT $2";

  private final Pool pool;
  private final int page;

  @Inject
  public FleetTallyRows(Pool pool) {
    this(pool, PAGE);
  }

  /** With pages of {@code page} nodes (a test's few nodes over several pages). */
  FleetTallyRows(Pool pool, int page) {
    this.pool = pool;
    this.page = page;
  }

  /**
   * Whether the database orders node names as Java orders strings (a C collation: by code point,
   * which for the ASCII of node names is Java's order), so that a listing from memory comes in the
   * order of the listing in SQL ({@code ORDER BY n.name}). Another collation (en_US and the like
   * weigh '-' and '.' apart from letters) keeps listings in SQL.
   */
  public Uni<Boolean> sortsNamesAsJava() {
    return pool.query("SELECT datcollate FROM pg_database WHERE datname = current_database()")
        .execute()
        .map(
            rows ->
                Rows.first(rows)
                    .map(row -> C_COLLATIONS.contains(row.getString("datcollate")))
                    .orElse(false));
  }

  private static final Set<String> C_COLLATIONS = Set.of("C", "POSIX", "C.UTF-8", "C.utf8");

  /** Every node of the tables as held, by name. */
  public Uni<Map<String, HeldNode>> read() {
    return PipelinedTransaction.readSnapshot(
        pool,
        transaction -> {
          Map<String, HeldNode> nodes = new HashMap<>();
          return pagesAfter(transaction.connection(), "", page, nodes)
              .chain(transaction::commit)
              .replaceWith(nodes);
        });
  }

  /** The pages of nodes named after {@code after}, in name order, into {@code nodes}. */
  private static Uni<Void> pagesAfter(
      SqlConnection conn, String after, int size, Map<String, HeldNode> nodes) {
    return conn.preparedQuery(NODES)
        .execute(Tuple.of(after, size))
        .chain(
            nodeRows -> {
              List<Row> page = new ArrayList<>();
              nodeRows.forEach(page::add);
              if (page.isEmpty()) {
                return Uni.createFrom().voidItem();
              }
              String[] names =
                  page.stream().map(row -> row.getString("name")).toArray(String[]::new);
              Tuple named = Tuple.tuple().addArrayOfString(names);
              Uni<RowSet<Row>> gpus = conn.preparedQuery(NodeQueries.GPU_ROWS).execute(named);
              Uni<RowSet<Row>> instances =
                  conn.preparedQuery(NodeQueries.INSTANCE_ROWS).execute(named);
              Uni<RowSet<Row>> reconciles =
                  conn.preparedQuery(NodeQueries.RECONCILE_ROWS).execute(named);
              return Uni.combine()
                  .all()
                  .unis(gpus, instances, reconciles)
                  .asTuple()
                  .chain(
                      rows -> {
                        add(page, rows.getItem1(), rows.getItem2(), rows.getItem3(), nodes);
                        return page.size() < size
                            ? Uni.createFrom().voidItem()
                            : pagesAfter(conn, names[names.length - 1], size, nodes);
                      });
            });
  }

  private static void add(
      List<Row> page,
      RowSet<Row> gpuRows,
      RowSet<Row> instanceRows,
      RowSet<Row> reconcileRows,
      Map<String, HeldNode> nodes) {
    Map<String, ReconcileState> reconciles = ReconcileRows.read(reconcileRows, List.of());
    List<NodeView> views = NodeQueries.assemble(page, gpuRows, instanceRows, reconciles);
    for (int i = 0; i < page.size(); i++) {
      Row row = page.get(i);
      NodeView view = views.get(i);
      nodes.put(
          view.name(),
          new HeldNode(
              new NodePosition(row.getLong("last_epoch"), row.getLong("last_seq")),
              view,
              reconciles.get(view.name())));
    }
  }
}
