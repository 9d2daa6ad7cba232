package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.vertx.mutiny.sqlclient.Pool;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How fast the node history grows (issue 11 item 6), measured: one simulated day of a fleet (a
 * heartbeat every {@code -Dgrowth.heartbeatSeconds}, default the agents' 10 s, and about ten
 * changes of state per node: a registration and an inventory at start, a spec with two steps
 * applied, the gate released, the inventory again) projected through the projection's own writer
 * into the migrated schema, against the same events as rows of the history as it was before (V1's
 * table: every event a row, heartbeats included) in the same database. Prints bytes per node-day
 * (pg_total_relation_size) and the extrapolation to 10,000 nodes; fails when the history keeps more
 * than the changes of state.
 */
@ExtendWith(PostgresExtension.class)
class HistoryGrowthIT {
  private static final int NODES = Integer.getInteger("growth.nodes", 25);
  private static final Duration HEARTBEAT =
      Duration.ofSeconds(Long.getLong("growth.heartbeatSeconds", 10));
  private static final int FLEET = 10_000;
  private static final int BATCH = 2000;
  private static final Duration BOUND = Duration.ofMinutes(2);
  private static final Instant DAY = Instant.parse("2026-11-02T00:00:00Z");
  private static final URI SOURCE = URI.create("urn:fleetwave:growth");
  private static final String BEFORE = "history_before_v11";

  EmbeddedPostgres postgres;

  @Test
  void aDayOfHeartbeatsAddsNothingToTheHistoryButItsChangesOfState() throws Exception {
    try (MigratedPool database = MigratedPool.on(postgres);
        Connection db = MigratedDatabase.connect(postgres.jdbcUrl());
        Statement sql = db.createStatement()) {
      Pool pool = database.pool();
      // The day's partition exists, as the maintenance keeps it.
      new HistoryPartitionMaintenance(pool, Duration.ofDays(30), Duration.ofDays(1))
          .maintain(DAY)
          .await()
          .atMost(BOUND);
      sql.execute(
          "CREATE TABLE "
              + BEFORE
              + " (node text NOT NULL, epoch bigint NOT NULL, seq bigint NOT NULL,"
              + " event_id text NOT NULL, event_type text NOT NULL,"
              + " event_time timestamptz NOT NULL, payload jsonb NOT NULL,"
              + " PRIMARY KEY (node, epoch, seq))");
      long historyEmpty = historyBytes(sql);
      long beforeEmpty = bytes(sql, "SELECT pg_total_relation_size('" + BEFORE + "')");

      List<Envelope<NodeEvent>> day = day();
      ProjectionWriter writer = new ProjectionWriter(pool);
      long started = System.nanoTime();
      for (int i = 0; i < day.size(); i += BATCH) {
        List<Envelope<NodeEvent>> batch = day.subList(i, Math.min(day.size(), i + BATCH));
        writer.apply(ProjectionTables.LIVE, batch).await().atMost(BOUND);
        pool.preparedQuery(BEFORE_INSERT)
            .execute(ProjectionWriter.historyArrays(batch, new IdentityHashMap<>()))
            .await()
            .atMost(BOUND);
      }
      double seconds = (System.nanoTime() - started) / 1e9;

      long after = historyBytes(sql) - historyEmpty;
      long before = bytes(sql, "SELECT pg_total_relation_size('" + BEFORE + "')") - beforeEmpty;
      long afterRows = bytes(sql, "SELECT count(*) FROM node_events");
      long beforeRows = bytes(sql, "SELECT count(*) FROM " + BEFORE);
      long nodeRows = bytes(sql, "SELECT pg_total_relation_size('nodes')");
      double ratio = (double) after / before;
      System.out.printf(
          """
          Node history growth: %d nodes, one simulated day (a heartbeat every %d s, %d changes \
          of state per node), %,d events projected in %.1f s
                                            per node-day          at %,d nodes per day
            before (every event a row)    %,10d B %,7d rows   %,9.1f MiB  %,13d rows
            after  (changes of state)     %,10d B %,7d rows   %,9.1f MiB  %,13d rows
            ratio after / before          %.4f
            node rows (last seen, position, missed events): %,d B per node, not growing with time
          """,
          NODES,
          HEARTBEAT.toSeconds(),
          afterRows / NODES,
          day.size(),
          seconds,
          FLEET,
          before / NODES,
          beforeRows / NODES,
          mib(before),
          beforeRows * FLEET / NODES,
          after / NODES,
          afterRows / NODES,
          mib(after),
          afterRows * FLEET / NODES,
          ratio,
          nodeRows / NODES);

      assertThat(afterRows).as("history rows: the changes of state only").isEqualTo(10L * NODES);
      assertThat(beforeRows).isEqualTo(day.size());
      assertThat(bytes(sql, "SELECT count(*) FROM node_events_default"))
          .as("the day's history in its day partition")
          .isZero();
      assertThat(ratio).as("history bytes after / before").isLessThan(0.05);
    }
  }

  private static double mib(long bytesPerSimulatedFleet) {
    return bytesPerSimulatedFleet * (double) FLEET / NODES / (1024 * 1024);
  }

  /** The day in log order: every node's heartbeats, with its changes of state among them. */
  private static List<Envelope<NodeEvent>> day() {
    PlannedStep mig = new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "MIG on", 30_000);
    PlannedStep reset = new PlannedStep(1, StepKind.RESET_GPU, 0, "targeted reset", 60_000);
    long[] seqs = new long[NODES];
    List<Envelope<NodeEvent>> events = new ArrayList<>();
    long ticks = Duration.ofDays(1).dividedBy(HEARTBEAT);
    long changeTick = ticks / 2;
    for (long tick = 0; tick < ticks; tick++) {
      for (int n = 0; n < NODES; n++) {
        String node = "growth-" + n;
        Instant at = DAY.plus(HEARTBEAT.multipliedBy(tick)).plusMillis(n);
        List<NodeEvent> due = new ArrayList<>();
        if (tick == 0) {
          due.add(Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of("pool", "a")));
          due.add(Events.inventory(Events.H100, 8, MigMode.DISABLED));
        } else if (tick == changeTick) {
          due.add(new SpecAccepted(1, List.of(mig, reset)));
          due.add(new StepStarted(1, mig));
          due.add(new StepSucceeded(1, mig, 900));
          due.add(new StepStarted(1, reset));
          due.add(new StepSucceeded(1, reset, 4000));
          due.add(new SpecApplied(1));
          due.add(new GateReleased(1));
          due.add(Events.inventory(Events.H100, 8, MigMode.ENABLED));
        } else {
          due.add(new Heartbeat("boot-" + n, tick * HEARTBEAT.toSeconds()));
        }
        for (NodeEvent data : due) {
          events.add(Envelope.of(SOURCE, node, at, 1, seqs[n]++, data));
        }
      }
    }
    return events;
  }

  /** The history's insert as it was before V11: every applied event, heartbeats included. */
  private static final String BEFORE_INSERT =
      "INSERT INTO "
          + BEFORE
          + " (node, epoch, seq, event_id, event_type, event_time, payload)"
          + " SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[],"
          + " $5::text[], $6::timestamptz[], $7::text[]::jsonb[])";

  /** Heap, indexes and TOAST of every partition of the history. */
  private static long historyBytes(Statement sql) throws SQLException {
    return bytes(
        sql,
        "SELECT coalesce(sum(pg_total_relation_size(relid)), 0)"
            + " FROM pg_partition_tree('node_events') WHERE isleaf");
  }

  private static long bytes(Statement sql, String query) throws SQLException {
    try (ResultSet rows = sql.executeQuery(query)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
