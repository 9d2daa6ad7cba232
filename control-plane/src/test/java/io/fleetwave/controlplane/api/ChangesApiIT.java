package io.fleetwave.controlplane.api;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.fleetwave.controlplane.fixtures.ApiTokens;
import io.fleetwave.controlplane.fixtures.ProjectionRebuilds;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.testfixtures.events.Events;
import io.fleetwave.testfixtures.events.GpuBuilder;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Provenance of observed changes against the real broker and database: one node (chg-a) gets a spec
 * from a person that turns MIG on for GPU 0, then GPU 1 fails by itself, then the node reboots and
 * loses MIG; another (chg-b) gets a driver nobody asked for. Times are the events' own (on
 * Events.DAY, from Events.envelope), so the windows below are exact.
 */
@QuarkusTest
class ChangesApiIT {
  private static final String A = "chg-a";
  private static final String B = "chg-b";

  private static long lastSeqOfA;

  @BeforeEach
  void projectOnce() {
    if (lastSeqOfA > 0) {
      return;
    }
    try (TopicClient topic = new TopicClient()) {
      for (String node : List.of(A, B)) {
        topic.publish(
            Events.envelope(
                node,
                1,
                0,
                Events.registered(node, HostKind.UBUNTU, "580.95.05", Map.of("suite", "changes"))));
        topic.publish(Events.envelope(node, 1, 1, inventory(MigMode.DISABLED, GpuHealth.HEALTHY)));
      }
      await("chg-a projected")
          .atMost(Duration.ofSeconds(30))
          .until(() -> ProjectionRows.isAt(A, 1, 1));
      // A person asks for MIG on GPU 0; the agent applies it.
      List<NodeEvent> a = new ArrayList<>(MigOnGpu0.applied(MigOnGpu0.ask(A)));
      a.add(inventory(MigMode.ENABLED, GpuHealth.HEALTHY)); // seq 6: the spec's
      a.add(inventory(MigMode.ENABLED, GpuHealth.FAILED)); // seq 7: GPU 1 fails by itself
      long seq = 2;
      for (NodeEvent event : a) {
        topic.publish(Events.envelope(A, 1, seq++, event));
      }
      lastSeqOfA = seq - 1;
      // The node reboots: the new agent run reports first (MIG lost), then finds the new boot.
      topic.publish(Events.envelope(A, 2, 0, inventory(MigMode.DISABLED, GpuHealth.FAILED)));
      topic.publish(Events.envelope(A, 2, 1, new NodeBooted("boot-2", "boot-1")));
      topic.publish(
          Events.envelope(
              B,
              1,
              2,
              Events.registered(B, HostKind.UBUNTU, "590.10.01", Map.of("suite", "changes"))));
    }
    await("the chg-* events projected")
        .atMost(Duration.ofSeconds(30))
        .until(() -> ProjectionRows.isAt(A, 2, 1) && ProjectionRows.isAt(B, 1, 2));
  }

  /** GPU 0 with MIG in {@code gpu0} (two 3g.40gb when on), GPU 1 with MIG off and {@code gpu1}. */
  private static GpuInventoryReported inventory(MigMode gpu0, GpuHealth gpu1) {
    Gpu first = Events.gpu(0, Events.H100, gpu0);
    Gpu second = GpuBuilder.from(Events.gpu(1, Events.H100, MigMode.DISABLED)).health(gpu1).build();
    return new GpuInventoryReported(List.of(first, second));
  }

  private static JsonPath changes(String path, Map<String, ?> params) {
    return given().queryParams(params).get(path).then().statusCode(200).extract().jsonPath();
  }

  private static final String DAY_START = Events.DAY.toString();
  private static final String DAY_END = Events.DAY.plus(Duration.ofDays(1)).toString();

  /** The fixtures' day, [since, until), and {@code more} parameters. */
  private static Map<String, String> theDay(String... more) {
    Map<String, String> params = new java.util.LinkedHashMap<>();
    params.put("since", DAY_START);
    params.put("until", DAY_END);
    for (int i = 0; i < more.length; i += 2) {
      params.put(more[i], more[i + 1]);
    }
    return params;
  }

  @Test
  void eachChangeOfTheNodeIsAttributedToTheSpecAndItsAuthorTheBootOrNothingFleetwaveAskedFor() {
    JsonPath page = changes("/api/v1/nodes/" + A + "/changes", theDay());

    List<String> shown = new ArrayList<>();
    for (Map<String, Object> item : page.<Map<String, Object>>getList("items")) {
      shown.add(
          item.get("epoch")
              + "."
              + item.get("seq")
              + " "
              + item.get("gpu")
              + "/"
              + item.get("aspect")
              + " "
              + item.get("before")
              + "->"
              + item.get("after")
              + " "
              + item.get("cause"));
    }
    // Newest first; the aspects one event revealed in the order of their names.
    assertThat(shown)
        .containsExactly(
            "2.0 0/mig-layout 3g.40gb@0+3g.40gb@4-> reboot",
            "2.0 0/mig-mode enabled->disabled reboot",
            "1.7 1/health healthy->failed outside",
            "1.6 0/mig-layout ->3g.40gb@0+3g.40gb@4 spec",
            "1.6 0/mig-mode disabled->enabled spec");
    assertThat(page.getInt("total")).isEqualTo(5);
    String subject =
        given().get("/api/v1/security/whoami").then().extract().jsonPath().getString("subject");
    assertThat(page.getString("items[3].askedBy.actor")).isEqualTo(subject);
    assertThat(page.getString("items[3].askedBy.rollout")).isNull();
    assertThat(page.getLong("items[3].generation")).isPositive();
    assertThat(page.getString("items[0].bootId")).isEqualTo("boot-2");
    assertThat(page.getString("items[2].askedBy")).isNull();
    assertThat(page.getString("items[2].time"))
        .isEqualTo(Events.envelope(A, 1, 7, Events.heartbeat(1)).time().toString());
  }

  @Test
  void aDriverNobodyAskedForIsDriftAndTheSelectorAndWindowBoundTheListing() {
    JsonPath fleet = changes("/api/v1/changes", theDay("selector", "suite=changes"));
    assertThat(fleet.getList("items.node", String.class)).contains(A, B).hasSize(6);
    Map<String, Object> driver = fleet.getMap("items.find { it.node == 'chg-b' }");
    assertThat(driver)
        .containsEntry("aspect", "driver")
        .containsEntry("before", "580.95.05")
        .containsEntry("after", "590.10.01")
        .containsEntry("cause", "outside");

    // The window is [since, until): an until at the failure's time (seq 7 of chg-a) leaves it and
    // what came after out; chg-b's driver, seen before, stays.
    String seven = Events.envelope(A, 1, 7, Events.heartbeat(1)).time().toString();
    JsonPath before =
        changes(
            "/api/v1/changes",
            Map.of("selector", "suite=changes", "since", DAY_START, "until", seven));
    assertThat(before.getList("items.seq", Integer.class)).containsExactly(6, 6, 2);
    // Paged: a page of two, and the total of all.
    JsonPath paged = changes("/api/v1/changes", theDay("selector", "suite=changes", "size", "2"));
    assertThat(paged.getList("items")).hasSize(2);
    assertThat(paged.getInt("total")).isEqualTo(6);
    // An offset in the time zone of the caller is the same instant.
    assertThat(
            changes(
                    "/api/v1/changes",
                    Map.of(
                        "selector", "suite=changes",
                        "since", inParis(Events.DAY),
                        "until", inParis(Events.DAY.plus(Duration.ofDays(1)))))
                .getInt("total"))
        .isEqualTo(6);
  }

  /** The same instant written at UTC+01:00, seconds included (RFC 3339). */
  private static String inParis(Instant instant) {
    return DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(instant.atOffset(ZoneOffset.ofHours(1)));
  }

  @Test
  void badInputIsRefusedWithWhatIsWrong() {
    given()
        .queryParam("since", "yesterday")
        .get("/api/v1/changes")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("'since' must be an RFC 3339 time"))
        .body("parameter", equalTo("since"));
    given()
        .queryParam("until", "2026-13-01T00:00:00Z")
        .get("/api/v1/nodes/{name}/changes", A)
        .then()
        .statusCode(400)
        .body("parameter", equalTo("until"));
    given()
        .queryParams(Map.of("since", "2026-11-02T00:00:00Z", "until", "2026-11-01T00:00:00Z"))
        .get("/api/v1/changes")
        .then()
        .statusCode(422)
        .body("detail", containsString("is after 'until'"));
    given()
        .queryParam("selector", "suite in (")
        .get("/api/v1/changes")
        .then()
        .statusCode(400)
        .body("title", equalTo("Invalid label selector"));
    given().queryParam("size", "501").get("/api/v1/changes").then().statusCode(400);
    given().get("/api/v1/nodes/{name}/changes", "chg-nobody").then().statusCode(404);
  }

  @Test
  void viewersMayReadTheChangesAndStrangersMayNot() {
    given()
        .header("Authorization", ApiTokens.bearer(ApiTokens.viewer()))
        .queryParams(theDay())
        .get("/api/v1/nodes/{name}/changes", A)
        .then()
        .statusCode(200)
        .body("total", equalTo(5));
    given()
        .header("Authorization", ApiTokens.bearer(ApiTokens.of("no-role")))
        .get("/api/v1/changes")
        .then()
        .statusCode(403);
  }

  @Test
  void theChangesAreProjectionRowsThatARebuildDerivesAgain() {
    assertThat(ProjectionRows.of(A).get("node_changes")).hasSize(5);
    List<String> differences = ProjectionRebuilds.differences(Duration.ofSeconds(120));
    assertThat(differences).noneMatch(d -> d.contains("chg-"));
  }
}
