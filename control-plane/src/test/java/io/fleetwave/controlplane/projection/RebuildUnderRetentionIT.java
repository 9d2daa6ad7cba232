package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import io.fleetwave.controlplane.fixtures.ProjectionRebuilds;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.Topics;
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
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * "Rebuild from the log" under Kafka's retention: nodes project some events, their snapshots are
 * published to fleet.node-snapshots, more events follow, then every record of fleet.node-events
 * from before the snapshots is deleted (Admin.deleteRecords, as retention deletes them). The
 * rebuild starts from the snapshots, folds the retained tail and equals the live projection: the
 * nodes' facts, GPUs, reconcile state and missed events (none), and the history after the
 * snapshots. The history from before them is in the live projection only (kept for
 * fleetwave.projection.history.retention) and is not compared.
 */
@QuarkusTest
class RebuildUnderRetentionIT {
  private static final String PREFIX = "retention-";
  private static final int NODES = 4;
  private static final String QUIET = PREFIX + "quiet";
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final PlannedStep MIG =
      new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "MIG on", 30_000);

  @ConfigProperty(name = "kafka.bootstrap.servers")
  String bootstrap;

  @ConfigProperty(name = "mp.messaging.incoming.node-events.group.id")
  String liveGroup;

  @Inject NodeSnapshots snapshots;

  @Test
  void aRebuildFromTheSnapshotsAndTheRetainedTailEqualsTheLiveProjection() throws Exception {
    try (TopicClient topic = new TopicClient();
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      List<Envelope<NodeEvent>> before = new ArrayList<>();
      List<Envelope<NodeEvent>> tail = new ArrayList<>();
      for (int i = 0; i < NODES; i++) {
        String node = PREFIX + i;
        before.add(Events.envelope(node, 1, 0, registered(node)));
        before.add(Events.envelope(node, 1, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)));
        before.add(Events.envelope(node, 1, 2, new SpecAccepted(1, List.of(MIG))));
        before.add(Events.envelope(node, 1, 3, new StepStarted(1, MIG)));
        before.add(Events.envelope(node, 1, 4, Events.heartbeat(40)));
        tail.add(Events.envelope(node, 1, 5, new StepSucceeded(1, MIG, 900)));
        tail.add(Events.envelope(node, 1, 6, new SpecApplied(1)));
        tail.add(Events.envelope(node, 1, 7, Events.heartbeat(70)));
      }
      // A node that says nothing after its snapshot: the rebuild knows it from the snapshot only.
      before.add(Events.envelope(QUIET, 1, 0, registered(QUIET)));
      before.add(Events.envelope(QUIET, 1, 1, Events.inventory(Events.L4, 1, MigMode.DISABLED)));
      before.add(Events.envelope(QUIET, 1, 2, Events.heartbeat(20)));

      topic.publishAll(before);
      awaitPositions(1, 4, 2);
      Map<TopicPartition, Long> retained = endOffsets(admin);
      awaitLiveGroupPast(admin, retained);
      assertThat(snapshots.publish())
          .as("snapshots published (every node that changed since its last one)")
          .isGreaterThanOrEqualTo(NODES + 1);

      topic.publishAll(tail);
      awaitPositions(1, 7, 2);
      admin
          .deleteRecords(
              retained.entrySet().stream()
                  .collect(
                      Collectors.toMap(
                          Map.Entry::getKey, e -> RecordsToDelete.beforeOffset(e.getValue()))))
          .all()
          .get(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertThat(startOffsets(admin).values())
          .as("fleet.node-events no longer starts at offset 0")
          .anyMatch(start -> start > 0);
    }

    assertThat(storeHistoryAsBeforeV25())
        .as("history rows whose stored text changed to jsonb's own form")
        .isPositive();

    ProjectionRebuilds.rebuild(Duration.ofSeconds(120))
        .statusCode(200)
        .body("differences", empty())
        .body("equal", equalTo(true))
        .body("snapshotsLoaded", greaterThanOrEqualTo(NODES + 1));

    Map<String, List<String>> live = ProjectionRows.of(PREFIX);
    assertThat(live.get("node_events"))
        .as("the live history keeps the events from before the snapshots (heartbeats aside)")
        .hasSize(NODES * 6 + 2);
    assertThat(
            ProjectionRows.count(
                "SELECT sum(missed_events) FROM nodes WHERE name LIKE 'retention-%'"))
        .isZero();
  }

  /**
   * The live history's payloads as V25 left the rows stored before it: jsonb's own text (keys
   * reordered, spaces added) rather than the text as received, which the rebuild stores. The
   * comparison must still find them equal.
   */
  private static int storeHistoryAsBeforeV25() throws Exception {
    try (Connection connection = ProjectionRows.connect();
        PreparedStatement update =
            connection.prepareStatement(
                "UPDATE node_events SET payload = payload::jsonb::text"
                    + " WHERE node LIKE ? AND payload <> payload::jsonb::text")) {
      update.setString(1, PREFIX + "%");
      return update.executeUpdate();
    }
  }

  private static io.fleetwave.events.node.NodeRegistered registered(String node) {
    return Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of("pool", "retention"));
  }

  private static void awaitPositions(long epoch, long seq, long quietSeq) {
    await("the nodes projected up to (" + epoch + ", " + seq + ")")
        .atMost(BOUND)
        .until(
            () -> {
              for (int i = 0; i < NODES; i++) {
                if (!Arrays.equals(ProjectionRows.position(PREFIX + i), new long[] {epoch, seq})) {
                  return false;
                }
              }
              return Arrays.equals(ProjectionRows.position(QUIET), new long[] {1, quietSeq});
            });
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin) throws Exception {
    return offsets(admin, OffsetSpec.latest());
  }

  private static Map<TopicPartition, Long> startOffsets(Admin admin) throws Exception {
    return offsets(admin, OffsetSpec.earliest());
  }

  private static Map<TopicPartition, Long> offsets(Admin admin, OffsetSpec spec) throws Exception {
    List<TopicPartition> partitions =
        admin
            .describeTopics(List.of(Topics.NODE_EVENTS))
            .allTopicNames()
            .get(BOUND.toSeconds(), TimeUnit.SECONDS)
            .get(Topics.NODE_EVENTS)
            .partitions()
            .stream()
            .map(p -> new TopicPartition(Topics.NODE_EVENTS, p.partition()))
            .toList();
    return admin
        .listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> spec)))
        .all()
        .get(BOUND.toSeconds(), TimeUnit.SECONDS)
        .entrySet()
        .stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
  }

  /** Every record before {@code ends} is in the live projection once its group committed them. */
  private void awaitLiveGroupPast(Admin admin, Map<TopicPartition, Long> ends) {
    await("the live projection to commit every record published so far")
        .atMost(BOUND)
        .until(
            () -> {
              Map<TopicPartition, OffsetAndMetadata> committed =
                  admin
                      .listConsumerGroupOffsets(liveGroup)
                      .partitionsToOffsetAndMetadata()
                      .get(BOUND.toSeconds(), TimeUnit.SECONDS);
              return ends.entrySet().stream()
                  .allMatch(
                      e ->
                          e.getValue() == 0
                              || (committed.get(e.getKey()) != null
                                  && committed.get(e.getKey()).offset() >= e.getValue()));
            });
  }
}
