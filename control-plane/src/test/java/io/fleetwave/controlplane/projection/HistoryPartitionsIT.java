package io.fleetwave.controlplane.projection;

import static io.fleetwave.controlplane.fixtures.MigratedDatabase.texts;
import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.vertx.mutiny.sqlclient.Pool;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node history's migration to day partitions (V11) on a database holding history, and the
 * partition maintenance of the control plane, against a real PostgreSQL. Each test has a database
 * of its own on the class's server.
 */
@ExtendWith(PostgresExtension.class)
class HistoryPartitionsIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");
  private static final String HEARTBEAT = "io.fleetwave.node.heartbeat.v1";
  private static final String REGISTERED = "io.fleetwave.node.registered.v1";
  private static final String INVENTORY = "io.fleetwave.node.gpu-inventory-reported.v1";
  private static final URI SOURCE = URI.create("urn:fleetwave:history-partitions-test");

  /** A time on the day partition past the retention at {@link #NOW}. */
  private static final String OLD_DAY = "2026-10-20T09:00:00Z";

  EmbeddedPostgres postgres;

  @Test
  void theMigrationKeepsEveryChangeOfStateInDayPartitionsAndCountsTheGapsOnTheNodeRow()
      throws SQLException {
    String url = MigratedDatabase.create(postgres, "converted");
    MigratedDatabase.migrate(url, "10");
    try (Connection db = MigratedDatabase.connect(url);
        Statement sql = db.createStatement()) {
      sql.execute("INSERT INTO nodes (name, last_epoch, last_seq) VALUES ('a', 2, 1), ('b', 1, 1)");
      // a: epoch 1 seqs 0 1 2 4 (3 missing), epoch 2 seq 1 (0 missing); b: no gap
      insertOld(sql, "a", 1, 0, REGISTERED, "2026-11-20T23:59:59Z");
      insertOld(sql, "a", 1, 1, HEARTBEAT, "2026-11-21T00:00:00Z");
      insertOld(sql, "a", 1, 2, INVENTORY, "2026-11-21T00:00:01Z");
      insertOld(sql, "a", 1, 4, HEARTBEAT, "2026-11-21T00:00:02Z");
      insertOld(sql, "a", 2, 1, INVENTORY, "2026-11-22T08:00:00Z");
      insertOld(sql, "b", 1, 0, REGISTERED, "2026-11-22T08:00:00Z");
      insertOld(sql, "b", 1, 1, HEARTBEAT, "2026-11-22T08:00:01Z");
    }
    MigratedDatabase.migrate(url, "latest");
    assertThat(texts(url, "SELECT name || ':' || missed_events FROM nodes ORDER BY name"))
        .containsExactly("a:2", "b:0");
    assertThat(
            texts(
                url,
                "SELECT tableoid::regclass || ' ' || node || ' ' || epoch || '/' || seq"
                    + " || ' ' || event_type FROM node_events ORDER BY node, epoch, seq"))
        .containsExactly(
            "node_events_p20261120 a 1/0 " + REGISTERED,
            "node_events_p20261121 a 1/2 " + INVENTORY,
            "node_events_p20261122 a 2/1 " + INVENTORY,
            "node_events_p20261122 b 1/0 " + REGISTERED);
    assertThat(partitions(url))
        .containsExactly(
            "node_events_default",
            "node_events_p20261120",
            "node_events_p20261121",
            "node_events_p20261122");
  }

  @Test
  void maintenanceCreatesDaysAheadDropsDaysPastTheRetentionAndEmptiesTheDefaultPartition()
      throws SQLException {
    String url = withAPartitionPastTheRetention("maintained");
    try (Connection db = MigratedDatabase.connect(url);
        Statement sql = db.createStatement()) {
      sql.execute(
          "CREATE TABLE node_events_p20261031 PARTITION OF node_events"
              + " FOR VALUES FROM ('2026-10-31T00:00:00Z') TO ('2026-11-01T00:00:00Z')");
      insert(sql, "a", 0, "2026-10-20T10:00:00Z"); // past the retention: its partition goes
      insert(sql, "a", 1, "2026-10-31T00:00:00Z"); // the oldest day kept
      insert(sql, "a", 2, "2026-10-01T10:00:00Z"); // default partition, past the retention
      insert(sql, "a", 3, "2026-11-25T10:00:00Z"); // default partition, kept: moved to its day
      insert(sql, "a", 4, "2026-11-25T23:59:59.999999Z");
      insert(sql, "a", 5, "2027-06-01T10:00:00Z"); // a clock far ahead: stays in the default
    }
    try (MigratedPool database = MigratedPool.onDatabase(url)) {
      Pool pool = database.pool();
      HistoryPartitionMaintenance maintenance =
          new HistoryPartitionMaintenance(pool, Duration.ofDays(30), Duration.ofDays(2));

      HistoryPartitionMaintenance.Outcome first = maintenance.maintain(NOW).await().atMost(BOUND);

      assertThat(first.ran()).isTrue();
      assertThat(first.created())
          .containsExactly(
              "node_events_p20261125",
              "node_events_p20261130",
              "node_events_p20261201",
              "node_events_p20261202");
      assertThat(first.dropped()).containsExactly("node_events_p20261020");
      assertThat(first.movedFromDefault()).isEqualTo(2);
      assertThat(partitions(url))
          .containsExactly(
              "node_events_default",
              "node_events_p20261031",
              "node_events_p20261125",
              "node_events_p20261130",
              "node_events_p20261201",
              "node_events_p20261202");
      assertThat(
              texts(url, "SELECT tableoid::regclass || ' ' || seq FROM node_events ORDER BY seq"))
          .containsExactly(
              "node_events_p20261031 1",
              "node_events_p20261125 3",
              "node_events_p20261125 4",
              "node_events_default 5");
      // A write of today's history lands in its day partition, not in the default.
      try (Connection db = MigratedDatabase.connect(url);
          Statement sql = db.createStatement()) {
        insert(sql, "a", 6, "2026-11-30T11:59:00Z");
      }
      assertThat(texts(url, "SELECT tableoid::regclass::text FROM node_events WHERE seq = 6"))
          .containsExactly("node_events_p20261130");

      HistoryPartitionMaintenance.Outcome again = maintenance.maintain(NOW).await().atMost(BOUND);
      assertThat(again)
          .isEqualTo(new HistoryPartitionMaintenance.Outcome(true, List.of(), List.of(), 0));

      // Another replica at it (holding the lock in its transaction): this run skips.
      try (Connection other = MigratedDatabase.connect(url)) {
        other.setAutoCommit(false);
        try (Statement sql = other.createStatement()) {
          sql.execute("SELECT pg_advisory_xact_lock(" + HistoryPartitionMaintenance.LOCK_KEY + ")");
          HistoryPartitionMaintenance.Outcome skipped =
              maintenance.maintain(NOW.plus(Duration.ofDays(5))).await().atMost(BOUND);
          assertThat(skipped.ran()).isFalse();
        }
        other.rollback();
      }
    }
  }

  /**
   * Dropping the days past the retention keeps what as-of reads need of them: a node that has not
   * registered or reported its GPUs since still reads, as of the oldest kept time, as its last
   * registration and inventory before said, with the reconcile state its progress events made.
   */
  @Test
  void droppedDaysLeaveEachNodesLastStateForReadsAsOfTheOldestKeptTime() throws Exception {
    String url = withAPartitionPastTheRetention("carried");
    try (MigratedPool database = MigratedPool.onDatabase(url)) {
      Pool pool = database.pool();
      // Applied as the projection applies them: the history rows and their registration_history
      // and inventory_history rows (V42) in one transaction.
      apply(
          pool,
          "old",
          0,
          Events.registered("old", HostKind.UBUNTU, "570.1", Map.of()),
          "2026-10-20T09:00:00Z");
      apply(
          pool,
          "old",
          1,
          Events.registered("old", HostKind.UBUNTU, "580.2", Map.of("pool", "p")),
          "2026-10-20T10:00:00Z");
      apply(
          pool,
          "old",
          2,
          Events.inventory(Events.H100, 2, MigMode.ENABLED),
          "2026-10-20T10:00:01Z");
      apply(pool, "old", 3, new SpecAccepted(1, List.of()), "2026-10-20T10:00:02Z");
      // The default partition, past the retention too; then a change kept (moved to its day).
      apply(
          pool,
          "old",
          4,
          Events.inventory(Events.H100, 2, MigMode.DISABLED),
          "2026-10-01T10:00:00Z");
      apply(pool, "old", 5, new SpecApplied(1), "2026-11-25T10:00:00Z");
      HistoryPartitionMaintenance maintenance =
          new HistoryPartitionMaintenance(pool, Duration.ofDays(30), Duration.ofDays(2));
      assertThat(maintenance.maintain(NOW).await().atMost(BOUND).dropped())
          .containsExactly("node_events_p20261020");
      assertThat(maintenance.maintain(NOW).await().atMost(BOUND).ran())
          .isTrue(); // again: no change
      assertThat(texts(url, "SELECT seq || ' ' || event_type FROM node_history_base ORDER BY seq"))
          .containsExactly(
              "1 " + REGISTERED, "3 io.fleetwave.node.spec-accepted.v1", "4 " + INVENTORY);
      assertThat(texts(url, "SELECT seq FROM node_events ORDER BY seq")).containsExactly("5");
      // Of the registrations and inventories as columns, each node's newest before the oldest
      // kept moment stays, the older ones go.
      assertThat(
              texts(
                  url,
                  "SELECT 'registration ' || seq FROM registration_history"
                      + " UNION ALL SELECT 'inventory ' || seq FROM inventory_history ORDER BY 1"))
          .containsExactly("inventory 4", "registration 1");
      NodeQueries nodes = new NodeQueries(pool);
      Instant keptFrom = Instant.parse("2026-10-31T00:00:00Z");
      NodeView then = nodes.asOf(keptFrom).find("old").await().atMost(BOUND).orElseThrow();
      assertThat(then.facts().driverVersion()).isEqualTo("580.2");
      assertThat(then.facts().labels()).containsEntry("pool", "p");
      assertThat(then.gpus())
          .extracting(NodeView.GpuView::migMode)
          .containsExactly("disabled", "disabled");
      assertThat(then.appliedGeneration()).isZero();
      // As the projection shows it: the time of the newest event applied (seq 4, stamped before
      // seq 3), not the latest time stamped.
      assertThat(then.lastSeen()).isEqualTo(Instant.parse("2026-10-01T10:00:00Z"));
      NodeView later =
          nodes
              .asOf(Instant.parse("2026-11-26T00:00:00Z"))
              .find("old")
              .await()
              .atMost(BOUND)
              .orElseThrow();
      assertThat(later.appliedGeneration()).isEqualTo(1);
    }
  }

  /**
   * The observed changes found in the history that goes go with it (a MIG mode and its layout
   * here), but for a node's open driver run, whose changes the drift view still reads to attribute:
   * its run starts at its first change.
   */
  @Test
  void droppedDaysTakeTheirChangesButAnOpenDriverRunsAlong() throws Exception {
    String url = withAPartitionPastTheRetention("changes");
    try (MigratedPool database = MigratedPool.onDatabase(url)) {
      Pool pool = database.pool();
      // Baselines (a node's first reports are not changes), then a driver and a MIG mode changed
      // outside any spec, all on the day past the retention.
      apply(pool, "old", 0, Events.registered("old", HostKind.UBUNTU, "570.1", Map.of()), OLD_DAY);
      apply(pool, "old", 1, Events.inventory(Events.H100, 1, MigMode.ENABLED), OLD_DAY);
      apply(pool, "old", 2, Events.registered("old", HostKind.UBUNTU, "580.2", Map.of()), OLD_DAY);
      apply(pool, "old", 3, Events.inventory(Events.H100, 1, MigMode.DISABLED), OLD_DAY);
      // A node whose change is within the retention.
      String kept = "2026-11-25T10:00:00Z";
      apply(pool, "new", 0, Events.registered("new", HostKind.UBUNTU, "570.1", Map.of()), kept);
      apply(pool, "new", 1, Events.inventory(Events.H100, 1, MigMode.ENABLED), kept);
      apply(pool, "new", 2, Events.inventory(Events.H100, 1, MigMode.DISABLED), kept);
      String changes = "SELECT node || ' ' || seq || ' ' || aspect FROM node_changes ORDER BY 1";
      assertThat(texts(url, changes))
          .containsExactly(
              "new 2 0/mig-layout",
              "new 2 0/mig-mode",
              "old 2 driver",
              "old 3 0/mig-layout",
              "old 3 0/mig-mode");

      new HistoryPartitionMaintenance(pool, Duration.ofDays(30), Duration.ofDays(2))
          .maintain(NOW)
          .await()
          .atMost(BOUND);

      assertThat(texts(url, changes))
          .containsExactly("new 2 0/mig-layout", "new 2 0/mig-mode", "old 2 driver");
      assertThat(
              texts(
                  url,
                  "SELECT node FROM node_provenance WHERE unexplained ? '0/mig-mode' ORDER BY 1"))
          .as("the MIG mode's run stays in the node's provenance, which the drift view reads")
          .containsExactly("new", "old");
    }
  }

  /**
   * A migrated database of its own with the day partition of 2026-10-20: past the retention of 30
   * days at {@link #NOW}, dropped by the next maintenance.
   */
  private String withAPartitionPastTheRetention(String name) throws SQLException {
    String url = MigratedDatabase.create(postgres, name);
    MigratedDatabase.migrate(url, "latest");
    try (Connection db = MigratedDatabase.connect(url);
        Statement sql = db.createStatement()) {
      sql.execute(
          "CREATE TABLE node_events_p20261020 PARTITION OF node_events"
              + " FOR VALUES FROM ('2026-10-20T00:00:00Z') TO ('2026-10-21T00:00:00Z')");
    }
    return url;
  }

  /** Applies one event of epoch 1 stamped {@code time} through the projection's writer. */
  private static void apply(Pool pool, String node, long seq, NodeEvent data, String time) {
    new ProjectionWriter(pool)
        .apply(
            ProjectionTables.LIVE,
            List.of(Envelope.of(SOURCE, node, Instant.parse(time), 1, seq, data)))
        .await()
        .atMost(BOUND);
  }

  private static void insertOld(
      Statement sql, String node, long epoch, long seq, String type, String time)
      throws SQLException {
    sql.execute(
        String.format(
            "INSERT INTO node_events VALUES ('%s', %d, %d, 'id-%s-%d-%d', '%s', '%s', '{}')",
            node, epoch, seq, node, epoch, seq, type, time));
  }

  private static void insert(Statement sql, String node, long seq, String time)
      throws SQLException {
    insertOld(sql, node, 1, seq, INVENTORY, time);
  }

  private static List<String> partitions(String url) throws SQLException {
    return texts(
        url,
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
            + " WHERE i.inhparent = 'node_events'::regclass ORDER BY 1");
  }
}
