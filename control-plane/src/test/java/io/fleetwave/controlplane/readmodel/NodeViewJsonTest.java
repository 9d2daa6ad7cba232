package io.fleetwave.controlplane.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.projection.NodeFacts;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The node's JSON: its facts are fields of the node, not an object of their own. */
class NodeViewJsonTest {
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void factsAreFieldsOfTheNodeInTheirOrder() throws Exception {
    NodeView node =
        NodeView.observed(
            "gpu-1",
            new NodeFacts(
                "ubuntu",
                "ubuntu",
                "24.04",
                "6.8.0",
                false,
                true,
                "/",
                "/",
                "host",
                "580.95.05",
                "a",
                Map.of("pool", "p"),
                Map.of()),
            null,
            List.of());

    JsonNode written = json.readTree(json.writeValueAsString(node));

    List<String> fields = new ArrayList<>();
    written.fieldNames().forEachRemaining(fields::add);
    // The record's components with the facts' own in place of "facts" (gpuModels, null, left out).
    List<String> expected = new ArrayList<>();
    for (RecordComponent component : NodeView.class.getRecordComponents()) {
      if (component.getName().equals("facts")) {
        Stream.of(NodeFacts.class.getRecordComponents())
            .map(RecordComponent::getName)
            .forEach(expected::add);
      } else if (!component.getName().equals("gpuModels")) {
        expected.add(component.getName());
      }
    }
    assertThat(fields).containsExactlyElementsOf(expected).contains("hostKind", "reasons");
    assertThat(written.get("labels").get("pool").asText()).isEqualTo("p");
  }

  @Test
  void aNodeWithNoNodeRegisteredShowsEachFactAsNull() throws Exception {
    NodeView node = NodeView.observed("gpu-1", NodeFacts.NONE, null, List.of());

    JsonNode written = json.readTree(json.writeValueAsString(node));

    assertThat(written.has("hostKind")).isTrue();
    assertThat(written.get("hostKind").isNull()).isTrue();
    assertThat(written.get("labels").isEmpty()).isTrue();
  }
}
