package io.fleetwave.controlplane.readmodel;

import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.paging.Page;
import io.fleetwave.controlplane.paging.PageRequest;
import io.fleetwave.controlplane.projection.ReconcileRows;
import io.fleetwave.controlplane.projection.UnexplainedRuns;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.core.provenance.Aspect;
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
import java.util.TreeSet;

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
   * The nodes' unexplained runs, kept by the change fold as it records the changes (V44): one row a
   * node with a run, whatever the change history's length. Reading the history itself for them took
   * 5.6 s of PostgreSQL at 10,000 nodes, every 15 s for the gauges (control-plane/BENCH.md).
   */
  private static final String RUNS =
      "SELECT node, unexplained FROM node_provenance"
          + " WHERE unexplained IS NOT NULL AND unexplained <> '{}'::jsonb";

  /** {@link #RUNS}' nodes with a drifted aspect but the driver, found by PostgreSQL. */
  private static final String OUTSIDE_NODES =
      "SELECT p.node FROM node_provenance p WHERE p.unexplained IS NOT NULL"
          + " AND p.unexplained <> '{}'::jsonb AND EXISTS (SELECT 1 FROM"
          + " jsonb_each(p.unexplained) AS e WHERE e.key <> 'driver'"
          + " AND e.value -> 'before' IS DISTINCT FROM e.value -> 'after')";

  /** Where each driver run starts, read out of the runs by PostgreSQL. */
  private static final String DRIVER_RUN_STARTS =
      "SELECT node, (unexplained -> 'driver' ->> 'epoch')::bigint AS epoch,"
          + " (unexplained -> 'driver' ->> 'seq')::bigint AS seq FROM node_provenance"
          + " WHERE unexplained ? 'driver'";

  /**
   * The changes of each driver run, from its first change on, in log order: whether a spec asked
   * for a driver version is known only from the desired-spec and rollout facts (attributed here).
   */
  private static final String DRIVER_RUNS =
      "SELECT c.* FROM node_changes c JOIN unnest($1::text[], $2::bigint[], $3::bigint[])"
          + " AS r(node, epoch, seq) ON c.node = r.node AND c.aspect = 'driver'"
          + " AND (c.epoch, c.seq) >= (r.epoch, r.seq) ORDER BY c.node, c.epoch, c.seq";

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
    return Uni.combine()
        .all()
        .unis(notConverged(), changedOutsideNodes(), silent(silentAfter))
        .with(
            (notConverged, changedOutside, silent) -> {
              Map<String, Long> counts = new TreeMap<>();
              counts.put(DriftView.NOT_CONVERGED, (long) notConverged.size());
              counts.put(DriftView.CHANGED_OUTSIDE, (long) changedOutside.size());
              counts.put(DriftView.AGENT_SILENT, (long) silent.size());
              return counts;
            });
  }

  /**
   * The nodes {@link #changedOutside} finds, without their runs: those with a run of an aspect but
   * the driver that is not back at its value before, decided in PostgreSQL (the gauges ask every 15
   * s, and reading every run into the control plane, 2.4 KB a node in the projection bench, stalled
   * the projection for a second each time: control-plane/BENCH.md), and those whose driver run is
   * outside Fleetwave.
   */
  private Uni<Set<String>> changedOutsideNodes() {
    return Uni.combine()
        .all()
        .unis(pool.query(OUTSIDE_NODES).execute(), pool.query(DRIVER_RUN_STARTS).execute())
        .asTuple()
        .chain(
            found -> {
              Set<String> nodes = new TreeSet<>();
              found.getItem1().forEach(row -> nodes.add(row.getString("node")));
              List<DriverRun> driverRuns =
                  Rows.each(
                      found.getItem2(),
                      row ->
                          new DriverRun(
                              row.getString("node"), row.getLong("epoch"), row.getLong("seq")));
              return driverOutside(driverRuns)
                  .map(
                      drivers -> {
                        nodes.addAll(drivers.keySet());
                        return nodes;
                      });
            });
  }

  /** Where a node's driver run starts: the position of its first change. */
  private record DriverRun(String node, long epoch, long seq) {}

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
    return pool.query(RUNS)
        .execute()
        .chain(
            rows -> {
              Map<String, List<DriftView.Aspect>> aspects = new TreeMap<>();
              List<DriverRun> driverRuns = new ArrayList<>();
              for (Row row : rows) {
                String node = row.getString("node");
                UnexplainedRuns.read(row.getJsonObject("unexplained"))
                    .forEach(
                        (key, run) -> {
                          if (key.aspect() == Aspect.DRIVER) {
                            driverRuns.add(new DriverRun(node, run.epoch(), run.seq()));
                          } else if (!Objects.equals(run.before(), run.after())) {
                            // else changed by hand and back again
                            aspects
                                .computeIfAbsent(node, n -> new ArrayList<>())
                                .add(
                                    new DriftView.Aspect(
                                        key.aspect().wireName(),
                                        key.gpu(),
                                        run.before(),
                                        run.after(),
                                        run.since()));
                          }
                        });
              }
              return driverOutside(driverRuns)
                  .map(
                      drivers -> {
                        drivers.forEach(
                            (node, driver) ->
                                aspects
                                    .computeIfAbsent(node, n -> new ArrayList<>())
                                    .addFirst(driver));
                        return causes(aspects);
                      });
            });
  }

  /**
   * Per node, its driver if the trailing changes of its run are all outside Fleetwave (no spec
   * asked for the version) and it is not back at the version before the first of them.
   */
  private Uni<Map<String, DriftView.Aspect>> driverOutside(List<DriverRun> runs) {
    if (runs.isEmpty()) {
      return Uni.createFrom().item(Map.of());
    }
    return pool.preparedQuery(DRIVER_RUNS)
        .execute(
            ColumnArrays.of(runs)
                .strings(DriverRun::node)
                .longs(DriverRun::epoch)
                .longs(DriverRun::seq)
                .tuple())
        .chain(
            rows -> {
              List<io.fleetwave.core.provenance.ObservedChange> found = new ArrayList<>();
              rows.forEach(row -> found.add(ChangeQueries.change(row)));
              return changes.attributed(found);
            })
        .map(DriftQueries::outsideRuns);
  }

  /**
   * Per node, the driver if its trailing changes (in log order) are all outside Fleetwave and it is
   * not back at the version before the first of them.
   */
  private static Map<String, DriftView.Aspect> outsideRuns(List<ChangeView> ordered) {
    Map<String, List<ChangeView>> byNode = new TreeMap<>();
    for (ChangeView change : ordered) {
      byNode.computeIfAbsent(change.node(), k -> new ArrayList<>()).add(change);
    }
    Map<String, DriftView.Aspect> drivers = new HashMap<>();
    for (List<ChangeView> run : byNode.values()) {
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
      drivers.put(
          now.node(),
          new DriftView.Aspect(now.aspect(), now.gpu(), start.before(), now.after(), start.time()));
    }
    return drivers;
  }

  private static Map<String, DriftView.Cause> causes(Map<String, List<DriftView.Aspect>> aspects) {
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
