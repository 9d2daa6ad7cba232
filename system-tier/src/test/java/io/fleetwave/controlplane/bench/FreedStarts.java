package io.fleetwave.controlplane.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which completion freed which start, read from the rollout's own event log in seq order. Within a
 * wave the engine keeps at most {@code maxUnavailable} nodes in flight: its first {@code
 * maxUnavailable} starts fill the window when the wave starts, and every start after them needs one
 * more node to have finished. So the wave's start number {@code maxUnavailable + k} is freed by its
 * {@code k}-th completion (NodeSucceeded or NodeFailed), the earliest one no earlier start has
 * used: that pair, not "the latest completion before the start", is the sliding start's latency.
 * Waves run one after the other, so a wave's completions free only its own starts; its completions
 * that free nothing (the last nodes of the wave) end the wave.
 */
final class FreedStarts {
  /** {@code freed} started in the slot {@code completed} left, in {@code wave}. */
  record Pair(String phase, int wave, String completed, String freed) {}

  /** The pairs, and the starts that filled each wave's window (no completion freed those). */
  record Result(List<Pair> pairs, Map<String, List<String>> fills, int unpaired) {}

  private FreedStarts() {}

  /**
   * @param events the rollout's events in seq order, as {@code GET /rollouts/{id}/events} pages
   *     them
   * @param maxUnavailable the plan's nodes in flight at most
   */
  static Result of(List<JsonNode> events, int maxUnavailable) {
    Map<String, ArrayDeque<String>> completions = new HashMap<>();
    Map<String, Integer> starts = new HashMap<>();
    Map<String, List<String>> fills = new java.util.LinkedHashMap<>();
    List<Pair> pairs = new ArrayList<>();
    int unpaired = 0;
    for (JsonNode event : events) {
      // Wire types carry a version suffix: io.fleetwave.rollout.node-started.v1
      String type = event.get("type").asText().replaceFirst("\\.v\\d+$", "");
      JsonNode data = event.get("data");
      if (!type.equals("io.fleetwave.rollout.node-started")
          && !type.equals("io.fleetwave.rollout.node-succeeded")
          && !type.equals("io.fleetwave.rollout.node-failed")) {
        continue;
      }
      String phase = data.path("phase").asText("rollout");
      int wave = data.get("wave").asInt();
      String node = data.get("node").asText();
      String key = phase + "/" + wave;
      if (!type.equals("io.fleetwave.rollout.node-started")) {
        completions.computeIfAbsent(key, k -> new ArrayDeque<>()).add(node);
        continue;
      }
      int number = starts.merge(key, 1, Integer::sum);
      if (number <= maxUnavailable) {
        fills.computeIfAbsent(key, k -> new ArrayList<>()).add(node);
        continue;
      }
      String freedBy = completions.getOrDefault(key, new ArrayDeque<>()).poll();
      if (freedBy == null) {
        unpaired++; // a start past the window with no completion before it: the engine overran
      } else {
        pairs.add(new Pair(phase, wave, freedBy, node));
      }
    }
    return new Result(List.copyOf(pairs), fills, unpaired);
  }
}
