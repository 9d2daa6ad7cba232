package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fleetwave.controlplane.fixtures.MigratedDatabase;
import io.fleetwave.controlplane.fixtures.MigratedPool;
import io.fleetwave.controlplane.projection.ProjectionTables;
import io.fleetwave.controlplane.projection.ProjectionWriter;
import io.fleetwave.embedded.EmbeddedPostgres;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.fleetwave.testsupport.services.PostgresExtension;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rows as-of reads pick from (registration_history and inventory_history, V42) on a day with
 * several changes of one node, a minute apart: as of each moment between two changes, a node and
 * the fleet summary read what the projection showed at that moment. The projection's answers are
 * recorded from a database that applies the day one event at a time; the as-of answers are asked of
 * it and of a database that applies the whole day as one batch (several registrations and
 * inventories of one node in one transaction), whose rows must be the same.
 */
@ExtendWith(PostgresExtension.class)
class AsOfStatesIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final URI SOURCE = URI.create("urn:fleetwave:as-of-states-test");
  private static final Instant MORNING = Instant.parse("2026-12-01T08:00:00Z");
  private static final List<String> NODES = List.of("x", "y");

  EmbeddedPostgres postgres;

  /** What the projection showed between one change and the next. */
  private record Shown(Map<String, Optional<NodeView>> nodes, FleetSummary summary) {}

  @Test
  void asOfEachMomentBetweenADaysChangesTheNodesAndTheSummaryAreWhatTheProjectionShowed()
      throws Exception {
    List<Envelope<NodeEvent>> day = day();
    try (AppliedTwoWays databases = new AppliedTwoWays("")) {
      Map<Instant, Shown> shown = new LinkedHashMap<>();
      databases.apply(
          day, event -> shown.put(event.time().plusSeconds(30), live(databases.stepwise.pool())));
      for (Map.Entry<Instant, Shown> then : shown.entrySet()) {
        for (Pool pool : databases.both()) {
          Shown asOf = asOf(pool, then.getKey());
          for (String node : NODES) {
            assertThat(asOf.nodes().get(node))
                .as("node %s as of %s", node, then.getKey())
                .isEqualTo(then.getValue().nodes().get(node));
          }
          assertThat(asOf.summary())
              .as("summary as of %s", then.getKey())
              .isEqualTo(then.getValue().summary());
        }
      }
      databases.assertSameStateRows(8);
    }
  }

  /**
   * A node whose clock was set back: its second run's events are stamped before its first run's
   * last ones. As of each moment, the node and the summary are what a projection shows that
   * applied, in the same order, only the events stamped up to that moment; in the database that
   * applied the events one at a time (the rows written before a row stamped earlier are lowered by
   * a later transaction, V43) and in the one that applied them as one batch.
   */
  @Test
  void asOfEachMomentANodeWhoseClockWentBackIsWhatItsEventsStampedUpToThenMade() throws Exception {
    List<Envelope<NodeEvent>> day = clockSetBack();
    try (AppliedTwoWays databases = new AppliedTwoWays("skew_")) {
      databases.apply(day, event -> {});
      List<Instant> moments =
          day.stream().map(event -> event.time().plusSeconds(30)).sorted().toList();
      for (int i = 0; i < moments.size(); i++) {
        Instant moment = moments.get(i);
        List<Envelope<NodeEvent>> upToThen =
            day.stream().filter(event -> !event.time().isAfter(moment)).toList();
        Shown shown;
        try (MigratedPool then = MigratedPool.onDatabase(database("skew_then_" + i))) {
          apply(then.pool(), upToThen);
          shown = live(then.pool());
        }
        for (Pool pool : databases.both()) {
          Shown asOf = asOf(pool, moment);
          assertThat(asOf.nodes()).as("nodes as of %s", moment).isEqualTo(shown.nodes());
          assertThat(asOf.summary()).as("summary as of %s", moment).isEqualTo(shown.summary());
        }
      }
      databases.assertSameStateRows(stateful(day));
    }
  }

  /**
   * A database whose history was kept before V42 (the day's first two events already carried to
   * node_history_base by the partition maintenance, the others in node_events, each payload as the
   * node sent it) gets, from the migration, the rows the projection writes for the same events.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void theMigrationParsesTheHistoryKeptBeforeItIntoTheRowsTheProjectionWrites(boolean clockSetBack)
      throws Exception {
    List<Envelope<NodeEvent>> day = clockSetBack ? clockSetBack() : day();
    String suffix = clockSetBack ? "_skew" : "";
    String migratedUrl = MigratedDatabase.create(postgres, "migrated" + suffix);
    MigratedDatabase.migrate(migratedUrl, "41");
    try (Connection db = MigratedDatabase.connect(migratedUrl)) {
      for (int i = 0; i < day.size(); i++) {
        insert(db, i < 2 ? "node_history_base" : "node_events", day.get(i));
      }
    }
    MigratedDatabase.migrate(migratedUrl, "latest");
    String writtenUrl = database("written" + suffix);
    try (MigratedPool written = MigratedPool.onDatabase(writtenUrl)) {
      apply(written.pool(), day);
    }
    assertThat(stateRows(migratedUrl)).isEqualTo(stateRows(writtenUrl)).hasSize(stateful(day));
  }

  /** A history row as the projection stored it before V42: the payload as JSON text. */
  private static void insert(Connection db, String table, Envelope<NodeEvent> event)
      throws Exception {
    try (PreparedStatement insert =
        db.prepareStatement(
            "INSERT INTO "
                + table
                + " (node, epoch, seq, event_id, event_type, event_time, payload)"
                + " VALUES (?, ?, ?, ?, ?, ?::timestamptz, ?)")) {
      insert.setString(1, event.subject());
      insert.setLong(2, event.epoch());
      insert.setLong(3, event.seq());
      insert.setString(4, event.id());
      insert.setString(5, event.type());
      insert.setString(6, event.time().toString());
      insert.setString(7, EventCodec.mapper().writeValueAsString(event.data()));
      insert.executeUpdate();
    }
  }

  /**
   * Node x registers, reports its GPUs with MIG off, turns MIG on, registers a new driver and pool,
   * reports one GPU degraded and the other's MIG off, accepts a spec, then MIG off on both; node y
   * joins in between. Stamped a minute apart, in the order applied.
   */
  private static List<Envelope<NodeEvent>> day() {
    List<Envelope<NodeEvent>> day = new ArrayList<>();
    day.add(at(day, "x", 0, Events.registered("x", HostKind.UBUNTU, "580.95.05", pool("a"))));
    day.add(at(day, "x", 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
    day.add(at(day, "y", 0, Events.registered("y", HostKind.TALOS, "580.95.05", pool("b"))));
    day.add(at(day, "x", 2, Events.inventory(Events.H100, 2, MigMode.ENABLED)));
    day.add(at(day, "y", 1, Events.inventory(Events.L4, 1, MigMode.DISABLED)));
    day.add(at(day, "x", 3, Events.registered("x", HostKind.UBUNTU, "580.105.08", pool("b"))));
    day.add(at(day, "x", 4, firstDegraded(MigMode.DISABLED)));
    day.add(at(day, "x", 5, new SpecAccepted(1, List.of())));
    day.add(at(day, "x", 6, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
    return day;
  }

  /**
   * Node x registers and reports its GPUs (MIG off, then on), registers a new driver; its agent
   * starts again (epoch 2) on a clock three minutes behind: it registers a third driver stamped
   * before the second, reports a GPU degraded, then MIG off. Node y registers in between.
   */
  private static List<Envelope<NodeEvent>> clockSetBack() {
    return List.of(
        stamped("x", 1, 0, 0, Events.registered("x", HostKind.UBUNTU, "570.86.15", pool("a"))),
        stamped("x", 1, 1, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)),
        stamped("x", 1, 2, 4, Events.inventory(Events.H100, 2, MigMode.ENABLED)),
        stamped("y", 1, 0, 4, Events.registered("y", HostKind.TALOS, "580.95.05", pool("b"))),
        stamped("x", 1, 3, 5, Events.registered("x", HostKind.UBUNTU, "580.95.05", pool("a"))),
        stamped("x", 2, 0, 2, Events.registered("x", HostKind.UBUNTU, "580.105.08", pool("b"))),
        stamped("x", 2, 1, 3, firstDegraded(MigMode.ENABLED)),
        stamped("x", 2, 2, 6, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
  }

  /** Two H100s: the first with MIG on and degraded, the second healthy with MIG {@code second}. */
  private static GpuInventoryReported firstDegraded(MigMode second) {
    return new GpuInventoryReported(
        List.of(
            GpuBuilder.from(Events.gpu(0, Events.H100, MigMode.ENABLED))
                .health(GpuHealth.DEGRADED)
                .build(),
            Events.gpu(1, Events.H100, second)));
  }

  /** How many rows of registration_history and inventory_history {@code day} makes. */
  private static int stateful(List<Envelope<NodeEvent>> day) {
    return (int)
        day.stream()
            .filter(
                e -> e.data() instanceof NodeRegistered || e.data() instanceof GpuInventoryReported)
            .count();
  }

  /** An event stamped {@code minute} minutes into the morning. */
  private static Envelope<NodeEvent> stamped(
      String node, long epoch, long seq, int minute, NodeEvent data) {
    return Envelope.of(SOURCE, node, MORNING.plus(Duration.ofMinutes(minute)), epoch, seq, data);
  }

  private static Map<String, String> pool(String name) {
    return Map.of("pool", name);
  }

  /** The next event of the day: a minute after the one before. */
  private static Envelope<NodeEvent> at(
      List<Envelope<NodeEvent>> before, String node, long seq, NodeEvent data) {
    return Envelope.of(SOURCE, node, MORNING.plus(Duration.ofMinutes(before.size())), 1, seq, data);
  }

  /**
   * Two migrated databases of their own ({@code prefix}stepwise and {@code prefix}batched) given
   * the same events: the one an event at a time, the other as one batch.
   */
  private final class AppliedTwoWays implements AutoCloseable {
    private final String stepwiseUrl;
    private final String batchedUrl;
    private final MigratedPool stepwise;
    private final MigratedPool batched;

    AppliedTwoWays(String prefix) throws SQLException {
      stepwiseUrl = database(prefix + "stepwise");
      batchedUrl = database(prefix + "batched");
      stepwise = MigratedPool.onDatabase(stepwiseUrl);
      batched = MigratedPool.onDatabase(batchedUrl);
    }

    /** Applies {@code events} to both; {@code afterEachStep} runs after each stepwise event. */
    void apply(List<Envelope<NodeEvent>> events, Consumer<Envelope<NodeEvent>> afterEachStep) {
      for (Envelope<NodeEvent> event : events) {
        AsOfStatesIT.apply(stepwise.pool(), List.of(event));
        afterEachStep.accept(event);
      }
      AsOfStatesIT.apply(batched.pool(), events);
    }

    List<Pool> both() {
      return List.of(stepwise.pool(), batched.pool());
    }

    /** Both hold the same history rows, {@code count} of them. */
    void assertSameStateRows(int count) throws SQLException {
      assertThat(stateRows(batchedUrl)).isEqualTo(stateRows(stepwiseUrl)).hasSize(count);
    }

    @Override
    public void close() {
      stepwise.close();
      batched.close();
    }
  }

  /** A migrated database of its own; its JDBC URL. */
  private String database(String name) throws SQLException {
    String url = MigratedDatabase.create(postgres, name);
    MigratedDatabase.migrate(url, "latest");
    return url;
  }

  private static void apply(Pool pool, List<Envelope<NodeEvent>> events) {
    new ProjectionWriter(pool).apply(ProjectionTables.LIVE, events).await().atMost(BOUND);
  }

  private static Shown live(Pool pool) {
    return read(new NodeQueries(pool), SummaryQueries.count(pool));
  }

  private static Shown asOf(Pool pool, Instant moment) {
    return read(new NodeQueries(pool).asOf(moment), SummaryQueries.asOf(pool, moment));
  }

  private static Shown read(NodeQueries queries, Uni<FleetSummary> summary) {
    Map<String, Optional<NodeView>> nodes = new LinkedHashMap<>();
    for (String node : NODES) {
      nodes.put(node, queries.find(node).await().atMost(BOUND));
    }
    return new Shown(nodes, summary.await().atMost(BOUND));
  }

  /** Every row of registration_history and inventory_history, as text, in key order. */
  private static List<String> stateRows(String url) throws SQLException {
    return MigratedDatabase.texts(
        url,
        "SELECT r::text FROM registration_history r UNION ALL"
            + " SELECT i::text FROM inventory_history i ORDER BY 1");
  }
}
