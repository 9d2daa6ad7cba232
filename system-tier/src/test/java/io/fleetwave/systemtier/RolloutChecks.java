package io.fleetwave.systemtier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** What a rollout's events (as the API lists them) must show after a fault. */
final class RolloutChecks {
  private RolloutChecks() {}

  /** The nodes in flight now, when the rollout has started a node of wave {@code wave}. */
  static Optional<Set<String>> inFlightInWave(List<JsonNode> events, int wave) {
    int current = 0;
    boolean startedInWave = false;
    Set<String> inFlight = new LinkedHashSet<>();
    for (JsonNode event : events) {
      String node = event.at("/data/node").asText();
      switch (type(event)) {
        case "wave-started" -> current = event.at("/data/wave").asInt();
        case "node-started" -> {
          inFlight.add(node);
          startedInWave |= current == wave;
        }
        case "node-succeeded", "node-failed" -> inFlight.remove(node);
        default -> {}
      }
    }
    return current == wave && startedInWave && !inFlight.isEmpty()
        ? Optional.of(inFlight)
        : Optional.empty();
  }

  /**
   * Every planned node started exactly once (forward), in its planned wave, and the rollout
   * completed with all of them succeeded.
   */
  static void assertCompletedEachNodeOnce(
      List<JsonNode> events, List<List<String>> waves, int nodes) {
    List<String> started =
        events.stream()
            .filter(e -> type(e).equals("node-started"))
            .filter(e -> e.at("/data/phase").asText().equals("forward"))
            .map(e -> e.at("/data/node").asText())
            .toList();
    assertThat(started).as("no node started twice").doesNotHaveDuplicates();
    List<String> planned = waves.stream().flatMap(List::stream).toList();
    assertThat(planned).hasSize(nodes);
    assertThat(started).as("no planned node skipped").containsExactlyInAnyOrderElementsOf(planned);
    int wave = 0;
    for (JsonNode event : events) {
      switch (type(event)) {
        case "wave-started" -> wave = event.at("/data/wave").asInt();
        case "node-started" -> {
          String node = event.at("/data/node").asText();
          assertThat(wave).as("a wave started before %s", node).isPositive();
          assertThat(waves.get(wave - 1)).as("%s starts in its wave %d", node, wave).contains(node);
        }
        default -> {}
      }
    }
    long seq = 0;
    for (JsonNode event : events) {
      assertThat(event.path("seq").asLong()).as("rollout events numbered 1..n").isEqualTo(++seq);
    }
    JsonNode completed = events.getLast();
    assertThat(type(completed)).as("the last event").isEqualTo("completed");
    assertThat(completed.at("/data/rolledBack").asBoolean()).isFalse();
    assertThat(completed.at("/data/succeeded").asInt()).as("%s", completed).isEqualTo(nodes);
    assertThat(completed.at("/data/failed").asInt()).as("%s", completed).isZero();
  }

  /**
   * The planned waves of a rollout as the API shows it (its plan: waves of batches of nodes),
   * whether its creation was logged as one record or in chunks.
   */
  static List<List<String>> plannedWaves(JsonNode rollout) {
    List<List<String>> waves = new ArrayList<>();
    for (JsonNode wave : rollout.at("/plan/waves")) {
      List<String> nodes = new ArrayList<>();
      for (JsonNode batch : wave.path("batches")) {
        batch.path("nodes").forEach(n -> nodes.add(n.path("node").asText()));
      }
      waves.add(nodes);
    }
    return waves;
  }

  /** io.fleetwave.rollout.node-started.v1 -> node-started */
  static String type(JsonNode event) {
    return event
        .get("type")
        .asText()
        .replaceFirst("^io\\.fleetwave\\.rollout\\.", "")
        .replaceFirst("\\.v\\d+$", "");
  }
}
