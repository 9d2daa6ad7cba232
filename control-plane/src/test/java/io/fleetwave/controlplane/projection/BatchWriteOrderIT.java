package io.fleetwave.controlplane.projection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.NodePartitions;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The consumer decodes the next batch while the one before it writes; a batch of a partition still
 * writes only after the batches of that partition received before it. A test transaction holds one
 * node's row, so the batch of that node's heartbeat cannot commit: a later heartbeat of a node in
 * the same partition must wait for it, one in another partition must not. The batches that wait for
 * the same write are then written together, in one transaction.
 */
@QuarkusTest
class BatchWriteOrderIT {
  private static final String HELD = "wo-held";
  private static final String NEIGHBOUR = NodePartitions.neighbour(HELD);
  private static final String NEIGHBOUR_TOO = NodePartitions.neighbour(NEIGHBOUR);
  private static final String STRANGER = NodePartitions.stranger(HELD);
  // Also the bound of the two "stays unapplied" checks, which pass once their condition held
  // throughout a window of seconds: a window that must fit a bound one or two seconds longer failed
  // on a loaded machine (fresh clone, 2026-12-06) when the polls themselves were late.
  private static final Duration BOUND = Duration.ofSeconds(30);

  @Test
  void aPartitionsBatchesCommitInTheOrderTheyWereReceived() throws Exception {
    try (TopicClient topic = new TopicClient();
        Connection holder = ProjectionRows.connect()) {
      for (String node : new String[] {HELD, NEIGHBOUR, NEIGHBOUR_TOO, STRANGER}) {
        topic.publish(
            Events.envelope(
                node, 1, 0, Events.registered(node, HostKind.UBUNTU, "580.1", Map.of())));
        awaitPosition(node, 0);
      }

      holder.setAutoCommit(false);
      try (PreparedStatement lock =
          holder.prepareStatement("SELECT 1 FROM nodes WHERE name = ? FOR UPDATE")) {
        lock.setString(1, HELD);
        lock.executeQuery().close();
      }
      topic.publish(Events.envelope(HELD, 1, 1, Events.heartbeat(1)));
      await("the held node's batch to wait on its row lock")
          .atMost(BOUND)
          .until(BatchWriteOrderIT::aProjectionWriteWaitsOnALock);

      // The next batch, of another partition, is not held up by it (before, the channel stalled).
      topic.publish(Events.envelope(STRANGER, 1, 1, Events.heartbeat(1)));
      awaitPosition(STRANGER, 1);

      // The same partition's next batch is decoded but must not commit before the held one.
      topic.publish(Events.envelope(NEIGHBOUR, 1, 1, Events.heartbeat(1)));
      assertStaysAtItsRegistration(
          NEIGHBOUR,
          Duration.ofSeconds(3),
          "the neighbour's heartbeat to stay unapplied while the batch before it waits");
      // Seconds later, so in a poll of its own: a batch of its own, waiting for the same write.
      topic.publish(Events.envelope(NEIGHBOUR_TOO, 1, 1, Events.heartbeat(1)));
      assertStaysAtItsRegistration(
          NEIGHBOUR_TOO,
          Duration.ofSeconds(2),
          "the second neighbour's heartbeat to stay unapplied too");

      holder.rollback();
      awaitPosition(HELD, 1);
      awaitPosition(NEIGHBOUR, 1);
      awaitPosition(NEIGHBOUR_TOO, 1);
      assertThat(writingTransactions(NEIGHBOUR, NEIGHBOUR_TOO))
          .as("transactions that wrote the two waiting batches")
          .isEqualTo(1);
    }
  }

  /** How many transactions last wrote these nodes' rows (PostgreSQL's xmin of each row). */
  private static long writingTransactions(String... nodes) throws Exception {
    try (Connection connection = ProjectionRows.connect();
        PreparedStatement writers =
            connection.prepareStatement(
                "SELECT count(DISTINCT xmin::text) FROM nodes WHERE name = ANY (?)")) {
      writers.setArray(1, connection.createArrayOf("text", nodes));
      try (ResultSet result = writers.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    }
  }

  private static void awaitPosition(String node, long seq) {
    await(node + " at (1, " + seq + ")")
        .atMost(BOUND)
        .until(() -> Arrays.equals(ProjectionRows.position(node), new long[] {1, seq}));
  }

  /** That the node's row stays at its registration, (1, 0), throughout {@code window}. */
  private static void assertStaysAtItsRegistration(String node, Duration window, String what) {
    await(what)
        .during(window)
        .atMost(BOUND)
        .untilAsserted(() -> assertThat(ProjectionRows.position(node)).containsExactly(1, 0));
  }

  private static boolean aProjectionWriteWaitsOnALock() throws Exception {
    try (Connection connection = ProjectionRows.connect();
        PreparedStatement waiting =
            connection.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity"
                    + " WHERE wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%'");
        ResultSet result = waiting.executeQuery()) {
      result.next();
      return result.getLong(1) > 0;
    }
  }
}
