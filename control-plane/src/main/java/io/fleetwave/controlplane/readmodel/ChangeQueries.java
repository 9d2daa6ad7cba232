package io.fleetwave.controlplane.readmodel;

import static io.fleetwave.controlplane.database.Rows.instant;

import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.core.provenance.AspectKey;
import io.fleetwave.core.provenance.ChangeAttribution;
import io.fleetwave.core.provenance.ObservedChange;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Reads of the observed changes (node_changes), newest first, each with its cause: the change fold
 * recorded what the node's own events said at the moment (the step that made it, the boot it came
 * with); who asked for a spec generation (a rollout, a person) and which generation asked for a
 * driver are joined here from the rollout and desired-spec tables, and {@link ChangeAttribution}
 * names the cause.
 */
@ApplicationScoped
public class ChangeQueries {
  private static final String ORDER =
      " ORDER BY c.event_time DESC, c.node, c.epoch DESC, c.seq DESC, c.aspect";

  /** Every rollout step of the page's nodes, with the driver its rollout asks for. */
  private static final String ROLLOUT_STEPS =
      "SELECT s.node, s.generation, s.rollout, r.name, s.wave, s.phase, r.created_by AS actor,"
          + " r.spec -> 'change' ->> 'driverVersion' AS driver_version, s.started_at AS at"
          + " FROM rollout_nodes rn JOIN rollout_node_states s ON s.rollout = rn.rollout"
          + " AND s.node = rn.node JOIN rollouts r ON r.id = rn.rollout"
          + " WHERE rn.node = ANY($1::text[]) AND s.generation IS NOT NULL";

  private static final String DESIRED =
      "SELECT node, generation, NULL::uuid AS rollout, NULL AS name, NULL::integer AS wave,"
          + " NULL AS phase, actor, spec ->> 'driverVersion' AS driver_version, updated_at AS at"
          + " FROM desired_specs WHERE node = ANY($1::text[])";

  private final Pool pool;

  public ChangeQueries(Pool pool) {
    this.pool = pool;
  }

  /**
   * The changes seen in {@code [since, until)} on the nodes a condition over {@code nodes n}
   * selects ({@code $1} onwards), newest first.
   */
  public Uni<Page<ChangeView>> changes(
      String nodeCondition, List<Object> params, Instant since, Instant until, PageRequest paging) {
    List<Object> all = new ArrayList<>(params);
    all.add(since.atOffset(ZoneOffset.UTC));
    all.add(until.atOffset(ZoneOffset.UTC));
    String from =
        " FROM node_changes c JOIN nodes n ON n.name = c.node WHERE ("
            + nodeCondition
            + ") AND c.event_time >= $"
            + (all.size() - 1)
            + " AND c.event_time < $"
            + all.size();
    Uni<Long> total =
        pool.preparedQuery("SELECT count(*) AS total" + from)
            .execute(Tuple.from(all))
            .map(rows -> rows.iterator().next().getLong("total"));
    List<Object> paged = new ArrayList<>(all);
    paged.add(paging.size());
    paged.add(paging.offset());
    Uni<List<ObservedChange>> rows =
        pool.preparedQuery(
                "SELECT c.*"
                    + from
                    + ORDER
                    + " LIMIT $"
                    + (paged.size() - 1)
                    + " OFFSET $"
                    + paged.size())
            .execute(Tuple.from(paged))
            .map(found -> Rows.each(found, ChangeQueries::change));
    return Uni.combine()
        .all()
        .unis(rows.chain(this::attributed), total)
        .with((items, count) -> new Page<>(items, paging.page(), paging.size(), count));
  }

  /** The changes with their causes and who asked for them, in the order given. */
  Uni<List<ChangeView>> attributed(List<ObservedChange> changes) {
    if (changes.isEmpty()) {
      return Uni.createFrom().item(List.of());
    }
    Tuple nodes =
        Tuple.tuple()
            .addArrayOfString(
                changes.stream().map(ObservedChange::node).distinct().toArray(String[]::new));
    return Uni.combine()
        .all()
        .unis(
            pool.preparedQuery(ROLLOUT_STEPS).execute(nodes).map(ChangeQueries::asks),
            pool.preparedQuery(DESIRED).execute(nodes).map(ChangeQueries::asks))
        .with(
            (rollouts, specs) -> {
              List<Ask> asks = new ArrayList<>(rollouts);
              asks.addAll(specs);
              return changes.stream().map(change -> view(change, asks)).toList();
            });
  }

  private static ChangeView view(ObservedChange change, List<Ask> asks) {
    ChangeAttribution.Attribution attribution =
        ChangeAttribution.attribute(change, driverAskedBy(change, asks));
    ChangeView.AskedBy askedBy =
        attribution.generation() == null
            ? null
            : asks.stream()
                .filter(
                    ask ->
                        ask.node.equals(change.node())
                            && ask.generation == attribution.generation())
                // A rollout's step names more than the desired-spec row of the same generation.
                .min(Comparator.comparing(ask -> ask.askedBy.rollout() == null))
                .map(ask -> ask.askedBy)
                .orElse(null);
    return new ChangeView(
        change.node(),
        change.time(),
        change.key().aspect().wireName(),
        change.key().gpu(),
        change.before(),
        change.after(),
        attribution.cause().wireName(),
        attribution.generation(),
        askedBy,
        change.bootId(),
        change.epoch(),
        change.seq());
  }

  /**
   * The newest generation sent to the node no later than the change that asked for exactly the
   * driver version it changed to.
   */
  private static OptionalLong driverAskedBy(ObservedChange change, List<Ask> asks) {
    return asks.stream()
        .filter(
            ask ->
                ask.node.equals(change.node())
                    && Objects.equals(ask.driverVersion, change.after())
                    && change.after() != null
                    && (ask.at == null || !ask.at.isAfter(change.time())))
        .mapToLong(ask -> ask.generation)
        .max();
  }

  /** A spec generation sent to a node: by whom, when, and the driver it asked for. */
  private record Ask(
      String node, long generation, String driverVersion, Instant at, ChangeView.AskedBy askedBy) {}

  /** The asks of either query (they name their columns alike; a person's has no rollout). */
  private static List<Ask> asks(Iterable<Row> rows) {
    List<Ask> asks = new ArrayList<>();
    for (Row row : rows) {
      ChangeView.RolloutRef rollout =
          row.getUUID("rollout") == null
              ? null
              : new ChangeView.RolloutRef(
                  row.getUUID("rollout"),
                  row.getString("name"),
                  row.getInteger("wave"),
                  row.getString("phase"));
      asks.add(
          new Ask(
              row.getString("node"),
              row.getLong("generation"),
              row.getString("driver_version"),
              instant(row, "at"),
              new ChangeView.AskedBy(row.getString("actor"), rollout)));
    }
    return asks;
  }

  static ObservedChange change(Row row) {
    return new ObservedChange(
        row.getString("node"),
        row.getLong("epoch"),
        row.getLong("seq"),
        row.getOffsetDateTime("event_time").toInstant(),
        AspectKey.parse(row.getString("aspect")),
        row.getString("before"),
        row.getString("after"),
        row.getLong("step_generation"),
        row.getLong("accepted_generation"),
        row.getString("boot_id"));
  }

  /** For a single node: a condition over {@code nodes n} naming it. */
  public static String nodeNamed() {
    return "n.name = $1";
  }
}
