package io.fleetwave.controlplane.projection;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.controlplane.fixtures.ProjectionRows;
import io.fleetwave.controlplane.fixtures.TopicClient;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.testfixtures.events.Events;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The node history stores each payload as the node sent it, not the decoded record written out
 * again: a field this build does not know (a newer agent may add one within a version) is kept.
 */
@QuarkusTest
class HistoryPayloadAsReceivedIT {
  private static final String NODE = "recv-0";
  private static final ObjectMapper JSON = EventCodec.mapper();

  @Test
  void theHistoryPayloadIsTheDataAsReceived() throws Exception {
    ObjectNode registration =
        (ObjectNode)
            JSON.readTree(
                EventCodec.encode(
                    Events.envelope(
                        NODE,
                        1,
                        0,
                        Events.registered(NODE, HostKind.TALOS, "580.95.05", Map.of()))));
    ((ObjectNode) registration.get("data")).putObject("addedLater").put("by", "a newer agent");
    // Pretty-printed: the received text differs in spacing too; the history compares as JSON.
    byte[] registered = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(registration);
    byte[] inventory =
        EventCodec.encode(
            Events.envelope(NODE, 1, 1, Events.inventory(Events.H100, 2, MigMode.DISABLED)));

    try (TopicClient topic = new TopicClient()) {
      // Signed over the bytes as sent, as a newer agent signs what it publishes.
      topic.publishRawAsKeyedNode(NODE, registered);
      topic.publishRawAsKeyedNode(NODE, inventory);
      await("recv-0 at (1, 1)")
          .atMost(Duration.ofSeconds(30))
          .until(() -> Arrays.equals(ProjectionRows.position(NODE), new long[] {1, 1}));
    }

    JsonNode items =
        JSON.readTree(
                given()
                    .get("/api/v1/nodes/" + NODE + "/events")
                    .then()
                    .statusCode(200)
                    .extract()
                    .asString())
            .get("items");
    assertThat(items).hasSize(2);
    assertThat(items.get(1).get("payload")).isEqualTo(registration.get("data"));
    assertThat(items.get(1).get("payload").at("/addedLater/by").asText())
        .isEqualTo("a newer agent");
    assertThat(items.get(0).get("payload")).isEqualTo(JSON.readTree(inventory).get("data"));
  }
}
