package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.projection.ReconcileRows;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.core.provenance.ChangeCause;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The drift view: every node whose observed state differs from what it should be, by cause.
 *
 * <ul>
 *   <li>not-converged: {@link Convergence} says so (the desired generation not applied, a step
 *       failed, the spec was refused, a boot not re-applied yet) or the driver differs from the
 *       desired one; since the desired spec was set.
 *   <li>changed-outside: an aspect the node reports (driver, MIG mode, MIG layout, VFs; health is
 *       no desired state) whose newest changes were all outside Fleetwave ({@link
 *       ChangeCause#OUTSIDE}) and that is not back at the value it had before the first of them.
 *   <li>agent-silent: no event for longer than the bound given (fleetwave.metrics.silent-after).
 * </ul>
 */
@ApplicationScoped
public class DriftQueries {
  private static final String NOT_CONVERGED =
      "SELECT i.node, d.updated_at, d.generation, i.desired_driver_version, i.driver_version,"
          + " i.driver_drift FROM reports.node_inventory i"
          + " LEFT JOIN desired_specs d ON d.node = i.node"
          + " WHERE NOT i.converged OR i.driver_drift";

  private static final String RECONCILES =
      "SELECT * FROM node_reconcile WHERE node = ANY($1::text[])";

  /**
   * The changes of each (node, aspect) since its newest change a step or a boot explains, for the
   * aspects whose newest change neither explains (drivers are judged after the join, in Java).
   */
  private static final String OUTSIDE_RUNS =
      "WITH newest AS (SELECT DISTINCT ON (node, aspect) node, aspect, step_generation, boot_id"
          + " FROM node_changes WHERE aspect NOT LIKE '%/health'"
          + " ORDER BY node, aspect, event_time DESC, epoch DESC, seq DESC)"
          + " SELECT c.* FROM node_changes c JOIN newest w ON w.node = c.node"
          + " AND w.aspect = c.aspect WHERE w.step_generation IS NULL"
          + " AND (w.boot_id IS NULL OR w.aspect = 'driver')"
          + " ORDER BY c.node, c.aspect, c.event_time, c.epoch, c.seq";

  private static final String SILENT =
      "SELECT name, last_seen FROM nodes WHERE last_seen < now() - make_interval(secs => $1)";

  private static final String LAST_SEEN =
      "SELECT name, last_seen FROM nodes WHERE name = ANY($1::text[])";

  private final Pool pool;
  private final ChangeQueries changes;

  public DriftQueries(Pool pool, ChangeQueries changes) {
    this.pool = pool;
    this.changes = changes;
  }

  /** One page of the drifted nodes, by name, with a cause among {@code causes} (empty: any). */
  public Uni<Page<DriftView>> drift(Duration silentAfter, Set<String> causes, PageRequest paging) {
    return all(silentAfter)
        .map(
            nodes -> {
              List<DriftView> matching =
                  nodes.stream()
                      .filter(
                          n ->
                              causes.isEmpty()
                                  || n.causes().stream().anyMatch(c -> causes.contains(c.cause())))
                      .toList();
              int from = (int) Math.min(paging.offset(), matching.size());
              int to = Math.min(from + paging.size(), matching.size());
              return new Page<>(
                  matching.subList(from, to), paging.page(), paging.size(), matching.size());
            });
  }

  /** How many nodes drift by each cause (a node with two causes counts in both). */
  public Uni<Map<String, Long>> counts(Duration silentAfter) {
    return all(silentAfter)
        .map(
            nodes -> {
              Map<String, Long> counts = new TreeMap<>();
              DriftView.CAUSES.forEach(cause -> counts.put(cause, 0L));
              nodes.forEach(n -> n.causes().forEach(c -> counts.merge(c.cause(), 1L, Long::sum)));
              return counts;
            });
  }

  /** Every drifted node, by name. */
  public Uni<List<DriftView>> all(Duration silentAfter) {
    return Uni.combine()
        .all()
        .unis(notConverged(), changedOutside(), silent(silentAfter))
        .asTuple()
        .chain(
            found -> {
              Map<String, List<DriftView.Cause>> byNode = new TreeMap<>();
              for (Map<String, DriftView.Cause> causes :
                  List.of(found.getItem1(), found.getItem2(), found.getItem3())) {
                causes.forEach(
                    (node, cause) ->
                        byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(cause));
              }
              return lastSeen(byNode.keySet())
                  .map(
                      seen ->
                          byNode.entrySet().stream()
                              .map(e -> view(e.getKey(), seen.get(e.getKey()), e.getValue()))
                              .toList());
            });
  }

  private static DriftView view(String node, Instant lastSeen, List<DriftView.Cause> causes) {
    Instant since =
        causes.stream()
            .map(DriftView.Cause::since)
            .filter(Objects::nonNull)
            .min(Comparator.naturalOrder())
            .orElse(null);
    return new DriftView(node, since, lastSeen, causes);
  }

  private Uni<Map<String, DriftView.Cause>> notConverged() {
    return pool.query(NOT_CONVERGED)
        .execute()
        .chain(
            rows -> {
              List<Row> found = new ArrayList<>();
              rows.forEach(found::add);
              if (found.isEmpty()) {
                return Uni.createFrom().item(Map.<String, DriftView.Cause>of());
              }
              Tuple names =
                  Tuple.tuple()
                      .addArrayOfString(
                          found.stream().map(r -> r.getString("node")).toArray(String[]::new));
              return pool.preparedQuery(RECONCILES)
                  .execute(names)
                  .map(
                      reconciles -> {
                        Map<String, ReconcileState> states =
                            ReconcileRows.read(reconciles, List.of());
                        Map<String, DriftView.Cause> causes = new HashMap<>();
                        for (Row row : found) {
                          String node = row.getString("node");
                          causes.put(node, notConverged(row, states.get(node)));
                        }
                        return causes;
                      });
            });
  }

  private static DriftView.Cause notConverged(Row row, ReconcileState state) {
    Convergence convergence = Convergence.of(row.getLong("generation"), state);
    List<String> reasons = new ArrayList<>();
    if (!convergence.converged()) {
      reasons.add(convergence.reason());
    }
    if (Boolean.TRUE.equals(row.getBoolean("driver_drift"))) {
      reasons.add(
          "driver "
              + row.getString("driver_version")
              + " where "
              + row.getString("desired_driver_version")
              + " is desired");
    }
    var updated = row.getOffsetDateTime("updated_at");
    return new DriftView.Cause(
        DriftView.NOT_CONVERGED,
        updated == null ? null : updated.toInstant(),
        String.join("; ", reasons),
        List.of());
  }

  private Uni<Map<String, DriftView.Cause>> changedOutside() {
    return pool.query(OUTSIDE_RUNS)
        .execute()
        .chain(
            rows -> {
              List<io.fleetwave.core.provenance.ObservedChange> found = new ArrayList<>();
              rows.forEach(row -> found.add(ChangeQueries.change(row)));
              return changes.attributed(found);
            })
        .map(DriftQueries::outsideRuns);
  }

  /**
   * Per node, the aspects whose trailing changes (in time order) are all outside Fleetwave and that
   * are not back at the value before the first of them.
   */
  private static Map<String, DriftView.Cause> outsideRuns(List<ChangeView> ordered) {
    Map<String, List<ChangeView>> byKey = new TreeMap<>();
    for (ChangeView change : ordered) {
      byKey
          .computeIfAbsent(
              change.node() + "\u0000" + change.gpu() + "/" + change.aspect(),
              k -> new ArrayList<>())
          .add(change);
    }
    Map<String, List<DriftView.Aspect>> aspects = new TreeMap<>();
    for (List<ChangeView> run : byKey.values()) {
      int first = run.size();
      while (first > 0 && run.get(first - 1).cause().equals(ChangeCause.OUTSIDE.wireName())) {
        first--;
      }
      if (first == run.size()) {
        continue;
      }
      ChangeView start = run.get(first);
      ChangeView now = run.getLast();
      if (Objects.equals(start.before(), now.after())) {
        continue; // changed by hand and back again
      }
      aspects
          .computeIfAbsent(now.node(), n -> new ArrayList<>())
          .add(
              new DriftView.Aspect(
                  now.aspect(), now.gpu(), start.before(), now.after(), start.time()));
    }
    Map<String, DriftView.Cause> causes = new HashMap<>();
    aspects.forEach(
        (node, changed) -> {
          Instant since =
              changed.stream()
                  .map(DriftView.Aspect::since)
                  .min(Comparator.naturalOrder())
                  .orElseThrow();
          causes.put(
              node,
              new DriftView.Cause(
                  DriftView.CHANGED_OUTSIDE,
                  since,
                  changed.size() + " aspect(s) changed by nothing Fleetwave asked for",
                  changed));
        });
    return causes;
  }

  private Uni<Map<String, DriftView.Cause>> silent(Duration silentAfter) {
    return pool.preparedQuery(SILENT)
        .execute(Tuple.of((double) silentAfter.toMillis() / 1000))
        .map(
            rows -> {
              Map<String, DriftView.Cause> causes = new HashMap<>();
              for (Row row : rows) {
                Instant seen = row.getOffsetDateTime("last_seen").toInstant();
                causes.put(
                    row.getString("name"),
                    new DriftView.Cause(
                        DriftView.AGENT_SILENT,
                        seen,
                        "no event for longer than " + silentAfter.toSeconds() + " s",
                        List.of()));
              }
              return causes;
            });
  }

  private Uni<Map<String, Instant>> lastSeen(Set<String> nodes) {
    if (nodes.isEmpty()) {
      return Uni.createFrom().item(Map.of());
    }
    return pool.preparedQuery(LAST_SEEN)
        .execute(Tuple.tuple().addArrayOfString(nodes.toArray(String[]::new)))
        .map(
            rows -> {
              Map<String, Instant> seen = new HashMap<>();
              for (Row row : rows) {
                var at = row.getOffsetDateTime("last_seen");
                if (at != null) {
                  seen.put(row.getString("name"), at.toInstant());
                }
              }
              return seen;
            });
  }
}
