package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.vertx.mutiny.sqlclient.Pool;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The projection writes an inventory as the difference to what it stored: the GPU rows, each with
 * its MIG instances (V45; read through the gpu_instances view), end equal to the newest inventory,
 * whatever changed (GPUs added, removed or changed, MIG instances added, removed or resized,
 * everything dropped), and a GPU row that did not change is not written at all (its row version,
 * xmin, stays), which is what makes a restated inventory cheap.
 */
@ExtendWith(PostgresExtension.class)
class InventoryWriteIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String NODE = "inventory-0";
  private static final String OTHER = "inventory-1";
  private static final List<GpuHealth> HEALTHS = List.of(GpuHealth.values());

  EmbeddedPostgres postgres;
  private MigratedPool database;
  private Pool pool;
  private ProjectionWriter writer;
  private long seq;

  @BeforeEach
  void migrate() throws Exception {
    database = MigratedPool.on(postgres);
    pool = database.pool();
    writer = new ProjectionWriter(pool);
    try (Connection db = connect();
        Statement sql = db.createStatement()) {
      sql.execute("TRUNCATE nodes, node_changes CASCADE");
    }
    project(
        List.of(
            Events.envelope(
                NODE, 1, seq++, Events.registered(NODE, HostKind.UBUNTU, "580.95.05", Map.of())),
            Events.envelope(
                OTHER, 1, 0, Events.registered(OTHER, HostKind.UBUNTU, "580.95.05", Map.of())),
            Events.envelope(OTHER, 1, 1, Events.inventory(Events.H100, 2, MigMode.ENABLED))));
  }

  @AfterEach
  void close() {
    database.close();
  }

  @Test
  void anInventoryRestatedUnchangedRewritesNoRow() throws Exception {
    GpuInventoryReported inventory = Events.inventory(Events.H100, 4, MigMode.ENABLED);
    report(inventory);
    Map<String, String> versions = rowVersions();
    assertThat(versions).hasSize(4);

    report(inventory);

    assertThat(rowVersions()).as("row versions after the same inventory again").isEqualTo(versions);
    assertThat(rows()).isEqualTo(expectedRows(inventory));
  }

  /**
   * A restatement (the digest of the node's last applied inventory, V27) sends no GPU or instance
   * statement: a row changed behind the projection's back stays as it is. Seen from outside only
   * that way; PostgreSQL's own count of the statements is the bench's (BENCH.md, eighth pass).
   */
  @Test
  void aRestatedInventoryIsNotWrittenAndAChangedOrUnknownOneIs() throws Exception {
    GpuInventoryReported inventory = Events.inventory(Events.H100, 2, MigMode.ENABLED);
    report(inventory);
    tamperWithGpuZero();

    report(inventory);
    assertThat(rows().get("gpu 0")).as("restated: no statement touched the rows").endsWith(",x");

    sql("UPDATE nodes SET inventory_digest = NULL WHERE name = '" + NODE + "'");
    report(inventory);
    assertThat(rows())
        .as("no digest stored (a node last inventoried before V27): written")
        .isEqualTo(expectedRows(inventory));

    tamperWithGpuZero();
    GpuInventoryReported changed = Events.inventory(Events.H100, 2, MigMode.DISABLED);
    report(changed);
    assertThat(rows()).as("a changed inventory: written").isEqualTo(expectedRows(changed));

    project(
        List.of(
            Events.envelope(NODE, 1, seq++, inventory), Events.envelope(NODE, 1, seq++, changed)));
    tamperWithGpuZero();
    report(changed);
    assertThat(rows().get("gpu 0"))
        .as("the digest kept is the newest inventory's of the batch")
        .endsWith(",x");
  }

  /**
   * A changed inventory of rows this writer knows sends only the rows that differ (KnownGpuRows): a
   * row changed behind its back, which the inventory restates, stays. A writer that does not know
   * the rows (another replica, a restarted control plane) compares them all in PostgreSQL.
   */
  @Test
  void aWriterThatKnowsTheStoredRowsSendsOnlyThoseThatDiffer() throws Exception {
    GpuInventoryReported three = Events.inventory(Events.H100, 3, MigMode.ENABLED);
    report(three);
    sql("UPDATE gpus SET health = 'x' WHERE node = '" + NODE + "' AND gpu_index = 2");

    GpuInventoryReported firstDegraded = withHealth(three, 0, GpuHealth.DEGRADED);
    report(firstDegraded);
    assertThat(rows().get("gpu 0")).endsWith(",degraded");
    assertThat(rows().get("gpu 2")).as("restated, known, not sent").endsWith(",x");

    GpuInventoryReported secondDegraded = withHealth(firstDegraded, 1, GpuHealth.DEGRADED);
    reportBy(new ProjectionWriter(pool), secondDegraded);
    assertThat(rows())
        .as("a writer that did not know the rows compared every one of them")
        .isEqualTo(expectedRows(secondDegraded));
  }

  /**
   * What a writer remembers of a node's rows is used only while the node's stored digest is the one
   * it remembers: rows another writer changed since (another replica after a rebalance; a
   * transaction that rolled back leaves the same mismatch) are compared in PostgreSQL.
   */
  @Test
  void rowsAnotherWriterChangedSinceAreNotAssumed() throws Exception {
    GpuInventoryReported three = Events.inventory(Events.H100, 3, MigMode.ENABLED);
    report(three);
    reportBy(new ProjectionWriter(pool), Events.inventory(Events.H100, 5, MigMode.ENABLED));

    GpuInventoryReported threeChanged = withHealth(three, 0, GpuHealth.FAILED);
    report(threeChanged);

    assertThat(rows())
        .as("the two GPUs the other writer added are gone, the changed one written")
        .isEqualTo(expectedRows(threeChanged));
  }

  /**
   * Random inventories one after the other, now and then from a second writer (each knowing only
   * what it wrote): after each the stored rows are exactly the newest inventory's.
   */
  @Test
  void randomInventoriesLeaveExactlyTheNewestRows() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    ProjectionWriter other = new ProjectionWriter(pool);
    for (int i = 0; i < 60; i++) {
      GpuInventoryReported inventory = randomInventory(random);
      reportBy(random.nextInt(5) == 0 ? other : writer, inventory);
      assertThat(rows()).as("inventory %d of seed %d", i, seed).isEqualTo(expectedRows(inventory));
    }
  }

  private static GpuInventoryReported randomInventory(Random random) {
    List<Gpu> gpus = new ArrayList<>();
    for (int index = 0; index < 6; index++) {
      if (random.nextInt(4) == 0) {
        continue;
      }
      String model = random.nextBoolean() ? Events.H100 : Events.H200;
      MigMode mode = random.nextBoolean() ? MigMode.ENABLED : MigMode.DISABLED;
      GpuHealth health = HEALTHS.get(random.nextInt(HEALTHS.size()));
      gpus.add(GpuBuilder.from(Events.gpu(index, model, mode)).health(health).build());
    }
    return new GpuInventoryReported(gpus);
  }

  private static GpuInventoryReported withHealth(
      GpuInventoryReported inventory, int index, GpuHealth health) {
    return new GpuInventoryReported(
        inventory.gpus().stream()
            .map(gpu -> gpu.index() == index ? GpuBuilder.from(gpu).health(health).build() : gpu)
            .toList());
  }

  private void reportBy(ProjectionWriter by, GpuInventoryReported inventory) {
    by.apply(ProjectionTables.LIVE, List.of(Events.envelope(NODE, 1, seq++, inventory)))
        .await()
        .atMost(BOUND);
  }

  private void tamperWithGpuZero() throws SQLException {
    sql("UPDATE gpus SET health = 'x' WHERE node = '" + NODE + "' AND gpu_index = 0");
  }

  private void sql(String statement) throws SQLException {
    try (Connection db = connect();
        Statement sql = db.createStatement()) {
      sql.execute(statement);
    }
  }

  @Test
  void theStoredRowsFollowEveryKindOfChangeAndOnlyTheChangedRowsAreWritten() throws Exception {
    report(Events.inventory(Events.H100, 3, MigMode.ENABLED));
    Map<String, String> before = rowVersions();

    Gpu unchanged = Events.gpu(0, Events.H100, MigMode.ENABLED);
    Gpu resized =
        GpuBuilder.from(Events.gpu(1, Events.H100, MigMode.ENABLED))
            .instances(List.of(new GpuInstance("4g.40gb", 0, 4), new GpuInstance("1g.10gb", 6, 1)))
            .build();
    Gpu added = Events.gpu(3, Events.H200, MigMode.DISABLED);
    GpuInventoryReported changed = new GpuInventoryReported(List.of(unchanged, resized, added));
    report(changed);

    assertThat(rows()).isEqualTo(expectedRows(changed));
    Map<String, String> after = rowVersions();
    assertThat(after)
        .as("GPU 0 and its instances (in its row, V45), unchanged, keep their row version")
        .containsEntry("gpu 0", before.get("gpu 0"));
    assertThat(after.get("gpu 1"))
        .as("GPU 1's instances resized: its row rewritten")
        .isNotEqualTo(before.get("gpu 1"));

    Gpu migOff = GpuBuilder.from(unchanged).migMode(MigMode.DISABLED).instances(List.of()).build();
    GpuInventoryReported disabled = new GpuInventoryReported(List.of(migOff, added));
    report(disabled);
    assertThat(rows()).isEqualTo(expectedRows(disabled));

    GpuInventoryReported none = new GpuInventoryReported(List.of());
    report(none);
    assertThat(rows()).as("an empty inventory leaves no GPU of the node").isEmpty();

    assertThat(rowsOf(OTHER))
        .as("the other node's rows, never reported again, untouched")
        .isEqualTo(expectedRows(Events.inventory(Events.H100, 2, MigMode.ENABLED)));
  }

  @Test
  void severalInventoriesOfANodeInOneBatchLeaveTheNewest() throws Exception {
    report(Events.inventory(Events.H100, 2, MigMode.ENABLED));
    GpuInventoryReported newest = Events.inventory(Events.H200, 3, MigMode.DISABLED);

    project(
        List.of(
            Events.envelope(NODE, 1, seq++, Events.inventory(Events.L4, 1, MigMode.DISABLED)),
            Events.envelope(NODE, 1, seq++, newest)));

    assertThat(rows()).isEqualTo(expectedRows(newest));
  }

  private void report(GpuInventoryReported inventory) {
    project(List.of(Events.envelope(NODE, 1, seq++, inventory)));
  }

  private void project(List<Envelope<NodeEvent>> events) {
    writer.apply(ProjectionTables.LIVE, events).await().atMost(BOUND);
  }

  /** Every GPU and instance row of the node as text, by its key. */
  private Map<String, String> rows() throws SQLException {
    return rowsOf(NODE);
  }

  private Map<String, String> rowsOf(String node) throws SQLException {
    return query(
        "SELECT 'gpu ' || gpu_index AS key, concat_ws(',', uuid, pci_bus_id, pci_device_id,"
            + " product, memory_mib, mig_capable, mig_mode, mig_mode_pending, vfs_total,"
            + " vfs_enabled, health) AS value FROM gpus WHERE node = '"
            + node
            + "' UNION ALL SELECT 'instance ' || gpu_index || '/' || placement_start,"
            + " concat_ws(',', profile, placement_size) FROM gpu_instances WHERE node = '"
            + node
            + "'");
  }

  /** The row version (xmin) of every GPU row of the node (its instances inside), by its key. */
  private Map<String, String> rowVersions() throws SQLException {
    return query(
        "SELECT 'gpu ' || gpu_index AS key, xmin::text AS value FROM gpus WHERE node = '"
            + NODE
            + "'");
  }

  private static Map<String, String> expectedRows(GpuInventoryReported inventory) {
    Map<String, String> rows = new TreeMap<>();
    for (Gpu gpu : inventory.gpus()) {
      List<Object> values = new ArrayList<>();
      values.add(gpu.uuid());
      values.add(gpu.pciBusId());
      values.add(gpu.pciDeviceId());
      values.add(gpu.product());
      values.add(gpu.memoryMiB());
      values.add(gpu.migCapable() ? "t" : "f");
      values.add(gpu.migMode().wireName());
      values.add(gpu.migModePending().wireName());
      values.add(gpu.vfsTotal());
      values.add(gpu.vfsEnabled());
      values.add(gpu.health().wireName());
      rows.put(
          "gpu " + gpu.index(), String.join(",", values.stream().map(String::valueOf).toList()));
      for (GpuInstance instance : gpu.instances()) {
        rows.put(
            "instance " + gpu.index() + "/" + instance.placementStart(),
            instance.profile() + "," + instance.placementSize());
      }
    }
    return rows;
  }

  private Map<String, String> query(String sql) throws SQLException {
    Map<String, String> rows = new TreeMap<>();
    try (Connection db = connect();
        Statement statement = db.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      while (result.next()) {
        rows.put(result.getString("key"), result.getString("value"));
      }
    }
    return rows;
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(
        postgres.jdbcUrl(), EmbeddedPostgres.USER, EmbeddedPostgres.PASSWORD);
  }
}
