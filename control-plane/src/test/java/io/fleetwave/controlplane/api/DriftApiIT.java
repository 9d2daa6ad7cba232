package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import io.fleetwave.controlplane.fixtures.DriftListing;
import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.controlplane.readmodel.DriftQueries;
import io.fleetwave.controlplane.readmodel.DriftView;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The drift view against the real broker and database. drift-hand: its spec turned MIG on, then
 * someone turned it off by hand. drift-back: the same, then turned on again by hand. drift-late: a
 * spec the agent has not applied. drift-driver-hand: a driver installed by hand.
 * drift-driver-asked: the driver its desired spec asks for, installed by the driver executor (no
 * step of the agent names it), stamped after the spec was set. The other events carry November's
 * times, so every node but the drift-driver ones is also silent.
 */
@QuarkusTest
class DriftApiIT {
  private static final String HAND = "drift-hand";
  private static final String BACK = "drift-back";
  private static final String LATE = "drift-late";
  private static final String DRIVER_HAND = "drift-driver-hand";
  private static final String DRIVER_ASKED = "drift-driver-asked";
  private static final String NEW_DRIVER = "580.105.08";

  @TestHTTPResource(value = "metrics", management = true)
  String metrics;

  @Inject DriftQueries driftQueries;

  private static boolean projected;

  @BeforeEach
  void projectOnce() {
    if (projected) {
      return;
    }
    try (TopicClient topic = new TopicClient()) {
      for (String node : List.of(HAND, BACK, LATE)) {
        topic.publish(
            Events.envelope(
                node,
                1,
                0,
                Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of("suite", "drift"))));
        topic.publish(Events.envelope(node, 1, 1, inventory(MigMode.DISABLED)));
      }
      await("the drift-* nodes projected")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> List.of(HAND, BACK, LATE).stream().allMatch(n -> ProjectionRows.isAt(n, 1, 1)));
      Map<String, Long> generations = new HashMap<>();
      for (String node : List.of(HAND, BACK, LATE)) {
        generations.put(node, MigOnGpu0.ask(node));
      }
      for (String node : List.of(HAND, BACK)) {
        List<NodeEvent> events = new ArrayList<>(MigOnGpu0.applied(generations.get(node)));
        events.add(inventory(MigMode.ENABLED)); // seq 6: the spec's
        events.add(inventory(MigMode.DISABLED)); // seq 7: by hand
        if (node.equals(BACK)) {
          events.add(inventory(MigMode.ENABLED)); // seq 8: by hand, back as it was
        }
        long seq = 2;
        for (NodeEvent event : events) {
          topic.publish(Events.envelope(node, 1, seq++, event));
        }
      }
      for (String node : List.of(DRIVER_HAND, DRIVER_ASKED)) {
        topic.publish(Events.envelope(node, 1, 0, registered(node, "580.95.05")));
        topic.publish(Events.envelope(node, 1, 1, inventory(MigMode.DISABLED)));
      }
      await("the drift-driver-* nodes projected")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  List.of(DRIVER_HAND, DRIVER_ASKED).stream()
                      .allMatch(n -> ProjectionRows.isAt(n, 1, 1)));
      NodeActions.putSpec(DRIVER_ASKED, Map.of("driverVersion", NEW_DRIVER));
      // Stamped now, after the spec was set: a spec explains a driver it asked for before.
      for (String node : List.of(DRIVER_HAND, DRIVER_ASKED)) {
        topic.publish(
            Envelope.of(
                URI.create("urn:fleetwave:drift-test"),
                node,
                Instant.now(),
                1,
                2,
                registered(node, NEW_DRIVER)));
      }
    }
    await("the hand changes projected")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ProjectionRows.isAt(HAND, 1, 7)
                    && ProjectionRows.isAt(BACK, 1, 8)
                    && ProjectionRows.isAt(DRIVER_HAND, 1, 2)
                    && ProjectionRows.isAt(DRIVER_ASKED, 1, 2));
    projected = true;
  }

  private static NodeRegistered registered(String node, String driver) {
    return Events.registered(node, HostKind.UBUNTU, driver, Map.of("suite", "drift"));
  }

  private static GpuInventoryReported inventory(MigMode gpu0) {
    return new GpuInventoryReported(
        List.of(Events.gpu(0, Events.H100, gpu0), Events.gpu(1, Events.H100, MigMode.DISABLED)));
  }

  private static JsonPath drift(String cause) {
    return DriftListing.ofCause(cause);
  }

  @Test
  void aChangeByHandIsDriftWithWhatFleetwaveSetWhatTheNodeHasAndSinceWhen() {
    JsonPath outside = drift("changed-outside");
    List<String> nodes = outside.getList("items.node", String.class);
    assertThat(nodes).contains(HAND).doesNotContain(BACK, LATE);

    String hand = "items.find { it.node == '" + HAND + "' }";
    String handChanged = hand + ".causes.find { it.cause == 'changed-outside' }";
    String seven = Events.envelope(HAND, 1, 7, Events.heartbeat(1)).time().toString();
    assertThat(outside.getString(handChanged + ".since")).isEqualTo(seven);
    assertThat(outside.getList(handChanged + ".aspects", Map.class))
        .extracting(
            a ->
                a.get("gpu")
                    + "/"
                    + a.get("aspect")
                    + " "
                    + a.get("expected")
                    + "->"
                    + a.get("observed"))
        .containsExactly("0/mig-mode enabled->disabled", "0/mig-layout 3g.40gb@0+3g.40gb@4->");
    // Its spec was applied: not "not converged"; its events are old: silent too.
    assertThat(outside.getList(hand + ".causes.cause", String.class))
        .containsExactlyInAnyOrder("changed-outside", "agent-silent");
  }

  /**
   * A driver no spec asked for is drift from the version before it; the version the node's spec
   * asked for is not, though no step of the agent installed it.
   */
  @Test
  void aDriverNobodyAskedForIsDriftAndTheOneTheSpecAskedForIsNot() {
    JsonPath outside = drift("changed-outside");
    assertThat(outside.getList("items.node", String.class))
        .contains(DRIVER_HAND)
        .doesNotContain(DRIVER_ASKED);
    String driver =
        "items.find { it.node == '"
            + DRIVER_HAND
            + "' }.causes.find { it.cause == 'changed-outside' }.aspects[0]";
    assertThat(outside.getString(driver + ".aspect")).isEqualTo("driver");
    assertThat(outside.getString(driver + ".expected")).isEqualTo("580.95.05");
    assertThat(outside.getString(driver + ".observed")).isEqualTo(NEW_DRIVER);
  }

  @Test
  void aSpecNotAppliedIsNotConvergedWithTheAgentsReason() {
    JsonPath late = drift("not-converged");
    String entry =
        "items.find { it.node == '" + LATE + "' }.causes.find { it.cause == 'not-converged' }";
    assertThat(late.getString(entry + ".reason")).contains("desired generation 1, agent applied 0");
    assertThat(late.getString(entry + ".since")).isNotNull();
    assertThat(late.getList("items.node", String.class)).doesNotContain(HAND, BACK);
  }

  @Test
  void anUnknownCauseIsRefusedWithTheKnownOnes() {
    given()
        .queryParam("cause", "gremlins")
        .get("/api/v1/drift")
        .then()
        .statusCode(400)
        .body("detail", containsString("gremlins"))
        .body("detail", containsString("changed-outside"));
  }

  /**
   * The gauge of changed-outside nodes counts in PostgreSQL what the listing finds in the control
   * plane (a node changed by hand and back again is in neither). The other causes move with the
   * clock and the other tests' rollouts, so only this one is compared.
   */
  @Test
  void theChangedOutsideGaugeCountsWhatTheListingShows() {
    Duration silentAfter = Duration.ofMinutes(5);
    long listed =
        driftQueries.all(silentAfter).await().atMost(Duration.ofSeconds(30)).stream()
            .filter(
                node ->
                    node.causes().stream()
                        .anyMatch(cause -> cause.cause().equals(DriftView.CHANGED_OUTSIDE)))
            .count();
    assertThat(listed).isPositive();
    assertThat(driftQueries.counts(silentAfter).await().atMost(Duration.ofSeconds(30)))
        .containsEntry(DriftView.CHANGED_OUTSIDE, listed);
  }

  @Test
  void eachCauseHasAGauge() {
    Pattern changed =
        Pattern.compile("fleetwave_fleet_nodes_drifted\\{cause=\"changed-outside\"[^}]*} (\\S+)");
    await("the drift gauges count drift-hand")
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Matcher m = changed.matcher(given().get(metrics).then().extract().asString());
              return m.find() && Double.parseDouble(m.group(1)) >= 1;
            });
    String text = given().get(metrics).then().extract().asString();
    assertThat(text)
        .contains("fleetwave_fleet_nodes_drifted{cause=\"not-converged\"")
        .contains("fleetwave_fleet_nodes_drifted{cause=\"agent-silent\"");
  }
}
