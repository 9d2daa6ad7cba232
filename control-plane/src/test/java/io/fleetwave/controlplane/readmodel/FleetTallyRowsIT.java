package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.readmodel.FleetTally.HeldNode;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tables read a page of nodes at a time, as the fleet view loads and compares them: several
 * pages lose and repeat nothing, so a tally loaded from them counts what the SQL count counts.
 */
@QuarkusTest
class FleetTallyRowsIT {
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final int NODES = 9;

  @Inject Pool pool;

  @Test
  void pagesOfAFewNodesReadEveryNodeOnce() {
    String prefix = "tally-rows-" + Long.toHexString(System.nanoTime()) + "-";
    try (TopicClient topic = new TopicClient()) {
      for (int n = 0; n < NODES; n++) {
        String node = prefix + n;
        topic.register(node, HostKind.COS, Events.inventory(Events.H100, 1 + n, MigMode.ENABLED));
      }
    }
    for (int n = 0; n < NODES; n++) {
      String node = prefix + n;
      await(node + " projected").atMost(BOUND).until(() -> ProjectionRows.isAt(node, 1, 1));
    }

    Map<String, HeldNode> inPages = new FleetTallyRows(pool, 4).read().await().atMost(BOUND);
    Map<String, HeldNode> inOne =
        new FleetTallyRows(pool, Integer.MAX_VALUE).read().await().atMost(BOUND);

    assertThat(inPages).hasSizeGreaterThan(2 * 4).isEqualTo(inOne);
    assertThat(inPages.get(prefix + 8).node().gpus()).hasSize(9);
    FleetTally tally = new FleetTally();
    inPages.forEach(tally::put);
    assertThat(tally.summary()).isEqualTo(SummaryQueries.count(pool).await().atMost(BOUND));
  }
}
