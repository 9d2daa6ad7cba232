package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.vertx.mutiny.sqlclient.Pool;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a migration derives from the rows a database kept before it equals what the projection
 * writes for the same events: the unexplained runs of node_provenance (V44), which the drift view
 * reads instead of the change history, and the MIG instances inside their GPU's row (V45). The
 * projection writes the events into a database at the latest version; its rows are copied into a
 * database at the version before (PostgreSQL's JSON of each, a column the older table lacks left
 * out), which is then migrated.
 */
@ExtendWith(PostgresExtension.class)
class MigrationCarryOverIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final AtomicInteger WRITTEN = new AtomicInteger();
  private static final PlannedStep MIG_ON_GPU_1 =
      new PlannedStep(0, StepKind.SET_MIG_MODE, 1, "MIG on GPU 1", 1000);

  EmbeddedPostgres postgres;

  @Test
  void theMigrationFindsInTheChangeHistoryTheRunsTheProjectionKeeps() throws Exception {
    String writtenUrl = written();
    Map<String, List<String>> kept = runKeys(writtenUrl);
    // x: its driver changed by hand twice, the second time with a boot (which explains no driver);
    // MIG on GPU 0 by hand, then lost with a boot; MIG on GPU 1 by a step; GPU 1 failed (health has
    // no run). y: MIG by hand and back.
    assertThat(kept).containsEntry("x", List.of("driver"));
    assertThat(kept.get("y")).contains("0/mig-mode");

    String beforeUrl = database("before_v44", "43");
    for (String table : List.of("nodes", "node_changes", "node_provenance")) {
      copy(writtenUrl, beforeUrl, table);
    }
    MigratedDatabase.migrate(beforeUrl, "latest");

    assertThat(texts(beforeUrl, "node_provenance"))
        .isEqualTo(texts(writtenUrl, "node_provenance"))
        .hasSize(2);
  }

  @Test
  void theMigrationMovesEachGpusInstancesIntoItsRow() throws Exception {
    String writtenUrl = written();
    // x's GPU 1 ends with MIG on, its instances in its row (log()).
    assertThat(texts(writtenUrl, "gpu_instances")).isNotEmpty();

    String beforeUrl = database("before_v45", "44");
    for (String table : List.of("nodes", "gpus", "gpu_instances")) {
      copy(writtenUrl, beforeUrl, table);
    }
    MigratedDatabase.migrate(beforeUrl, "latest");

    assertThat(texts(beforeUrl, "gpus")).isEqualTo(texts(writtenUrl, "gpus")).hasSize(3);
    assertThat(texts(beforeUrl, "gpu_instances")).isEqualTo(texts(writtenUrl, "gpu_instances"));
    assertThat(texts(beforeUrl, "reports.gpu_layouts"))
        .isEqualTo(texts(writtenUrl, "reports.gpu_layouts"));
  }

  /**
   * A database at the latest version into which the projection wrote {@link #log()}, one event a
   * transaction (a boot then marks changes stored by an earlier one); its JDBC URL.
   */
  private String written() throws SQLException {
    String url = database("written_" + WRITTEN.incrementAndGet(), "latest");
    try (MigratedPool latest = MigratedPool.onDatabase(url)) {
      Pool pool = latest.pool();
      for (Envelope<NodeEvent> event : log()) {
        new ProjectionWriter(pool)
            .apply(ProjectionTables.LIVE, List.of(event))
            .await()
            .atMost(BOUND);
      }
    }
    return url;
  }

  /** Nodes x and y, as the comment in the test tells. */
  private static List<Envelope<NodeEvent>> log() {
    List<Envelope<NodeEvent>> log = new ArrayList<>();
    log.add(
        Events.envelope("x", 1, 0, Events.registered("x", HostKind.UBUNTU, "580.95.05", Map.of())));
    log.add(Events.envelope("x", 1, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
    log.add(Events.envelope("x", 1, 2, gpus(MigMode.ENABLED, MigMode.DISABLED, GpuHealth.HEALTHY)));
    log.add(
        Events.envelope(
            "x", 1, 3, Events.registered("x", HostKind.UBUNTU, "580.105.08", Map.of())));
    // The agent's next run: the boot took MIG away, and a driver was installed by hand before it.
    log.add(
        Events.envelope(
            "x", 2, 0, Events.registered("x", HostKind.UBUNTU, "580.126.09", Map.of())));
    log.add(Events.envelope("x", 2, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
    log.add(Events.envelope("x", 2, 2, new NodeBooted("boot-2", null)));
    log.add(Events.envelope("x", 2, 3, new SpecAccepted(1, List.of(MIG_ON_GPU_1))));
    log.add(Events.envelope("x", 2, 4, new StepStarted(1, MIG_ON_GPU_1)));
    log.add(Events.envelope("x", 2, 5, new StepSucceeded(1, MIG_ON_GPU_1, 5)));
    log.add(Events.envelope("x", 2, 6, gpus(MigMode.DISABLED, MigMode.ENABLED, GpuHealth.HEALTHY)));
    log.add(Events.envelope("x", 2, 7, gpus(MigMode.DISABLED, MigMode.ENABLED, GpuHealth.FAILED)));
    log.add(
        Events.envelope("y", 1, 0, Events.registered("y", HostKind.TALOS, "580.95.05", Map.of())));
    log.add(Events.envelope("y", 1, 1, Events.inventory(Events.H100, 1, MigMode.DISABLED)));
    log.add(Events.envelope("y", 1, 2, Events.inventory(Events.H100, 1, MigMode.ENABLED)));
    log.add(Events.envelope("y", 1, 3, Events.inventory(Events.H100, 1, MigMode.DISABLED)));
    return log;
  }

  private static GpuInventoryReported gpus(MigMode gpu0, MigMode gpu1, GpuHealth gpu1Health) {
    return new GpuInventoryReported(
        List.of(
            Events.gpu(0, Events.H100, gpu0),
            GpuBuilder.from(Events.gpu(1, Events.H100, gpu1)).health(gpu1Health).build()));
  }

  private String database(String name, String version) throws SQLException {
    String url = MigratedDatabase.create(postgres, name);
    MigratedDatabase.migrate(url, version);
    return url;
  }

  /**
   * Every row of {@code table}, by PostgreSQL's own JSON of it (a column the target lacks left
   * out).
   */
  private static void copy(String fromUrl, String toUrl, String table) throws SQLException {
    try (Connection from = MigratedDatabase.connect(fromUrl);
        Connection to = MigratedDatabase.connect(toUrl);
        Statement read = from.createStatement();
        ResultSet rows = read.executeQuery("SELECT to_jsonb(t)::text FROM " + table + " t");
        PreparedStatement insert =
            to.prepareStatement(
                "INSERT INTO "
                    + table
                    + " SELECT * FROM jsonb_populate_record(NULL::"
                    + table
                    + ", ?::jsonb)")) {
      while (rows.next()) {
        insert.setString(1, rows.getString(1));
        insert.executeUpdate();
      }
    }
  }

  /** Every row of {@code table} (or view) as text, in order. */
  private static List<String> texts(String url, String table) throws SQLException {
    return MigratedDatabase.texts(url, "SELECT t::text FROM " + table + " t ORDER BY 1");
  }

  /** Each node's aspects with a run, in order. */
  private static Map<String, List<String>> runKeys(String url) throws SQLException {
    Map<String, List<String>> keys = new LinkedHashMap<>();
    try (Connection db = MigratedDatabase.connect(url);
        Statement sql = db.createStatement();
        ResultSet rows =
            sql.executeQuery(
                "SELECT node, k FROM node_provenance, jsonb_object_keys(unexplained) AS k"
                    + " ORDER BY node, k")) {
      while (rows.next()) {
        keys.computeIfAbsent(rows.getString(1), n -> new ArrayList<>()).add(rows.getString(2));
      }
    }
    return keys;
  }
}
