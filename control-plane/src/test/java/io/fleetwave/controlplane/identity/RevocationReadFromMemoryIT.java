package io.fleetwave.controlplane.identity;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.FleetViewNodes;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.fleetview.FleetView;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.readmodel.NodeView;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A node read from the replica's in-memory view shows a revocation and a re-admission made through
 * that replica in the next read, and equals the tables then. Here, not in the fleet view's own IT:
 * a revoked node's events are refused by a later rebuild, which that IT's suite compares with the
 * live tables.
 */
@QuarkusTest
class RevocationReadFromMemoryIT {
  private static final Duration BOUND = Duration.ofSeconds(60);

  @Inject FleetView view;
  @Inject NodeQueries nodes;

  @Test
  void aRevocationShowsAtOnceOnTheReplicaThatMadeIt() {
    String node = "view-revoked-" + Long.toHexString(System.nanoTime());
    try (TopicClient topic = new TopicClient()) {
      topic.register(node, HostKind.UBUNTU, Events.inventory(Events.H100, 1, MigMode.DISABLED));
    }
    FleetViewNodes.awaitHeld(view, node);

    given().delete("/api/v1/nodes/" + node + "/enrolment").then().statusCode(200);
    NodeView revoked = view.node(node).orElseThrow().orElseThrow();
    assertThat(revoked.revoked()).isTrue();
    assertThat(revoked.revokedBy()).isNotBlank();
    given().get("/api/v1/nodes/" + node).then().statusCode(200).body("revoked", equalTo(true));
    assertThat(view.node(node)).contains(nodes.find(node).await().atMost(BOUND));

    given().post("/api/v1/nodes/" + node + "/enrolment/readmission").then().statusCode(200);
    assertThat(view.node(node).orElseThrow().orElseThrow().revoked()).isFalse();
    assertThat(view.node(node)).contains(nodes.find(node).await().atMost(BOUND));
  }
}
