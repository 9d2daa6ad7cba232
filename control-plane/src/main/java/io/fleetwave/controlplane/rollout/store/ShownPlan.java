package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.core.rollout.plan.NodeBatch;
import io.fleetwave.core.rollout.plan.PlannedWave;
import io.fleetwave.core.rollout.plan.RolloutPlan;
import java.util.List;
import java.util.Optional;

/**
 * A stored rollout's plan as the API shows it (GET /api/v1/rollouts/{id} and the 201 of its
 * creation): as planned up to {@link #COMPLETE_UP_TO} planned nodes; above, cut so that it stays a
 * few KB whatever the rollout's size (a plan of 100,000 one-GPU nodes is 55 MB of JSON):
 *
 * <ul>
 *   <li>each wave counts its nodes and batches ({@code nodeCount}, {@code batchCount}) and lists
 *       its first {@link #LISTED} batches, each with its number and zones and a {@code nodeCount}
 *       instead of its nodes;
 *   <li>the excluded nodes are cut to the first {@link #LISTED} ({@code excludedCount} counts them
 *       all);
 *   <li>{@code truncated} is true.
 * </ul>
 *
 * GET .../nodes pages through every node. The cut is made once, when the rollout is created, and
 * stored next to the plan ({@code rollouts.shown_plan}): a plan never changes once stored.
 */
public final class ShownPlan {
  /** Up to this many planned nodes a plan is shown complete, as the full view lists its nodes. */
  public static final int COMPLETE_UP_TO = RolloutFullView.FULL_VIEW_NODES;

  /** The most batches per wave, and excluded nodes, a cut plan lists (it counts them all). */
  public static final int LISTED = 50;

  private ShownPlan() {}

  /** The plan cut for showing; empty when it is shown complete, as planned. */
  public static Optional<JsonNode> cut(RolloutPlan plan, ObjectMapper json) {
    if (plan.plannedNodes() <= COMPLETE_UP_TO) {
      return Optional.empty();
    }
    // The plan's own fields as written for storing, then its lists replaced by their cuts.
    ObjectNode shown =
        json.valueToTree(
            new RolloutPlan(
                plan.name(),
                plan.change(),
                plan.strategy(),
                plan.plannedNodes(),
                plan.maxUnavailableNodes(),
                plan.maxZonesInFlight(),
                List.of(),
                List.of(),
                plan.capacity(),
                plan.forecasts()));
    shown.put("truncated", true);
    shown.put("excludedCount", plan.excluded().size());
    shown.set("excluded", json.valueToTree(first(plan.excluded())));
    ArrayNode waves = shown.putArray("waves");
    for (PlannedWave wave : plan.waves()) {
      waves.add(wave(wave, json));
    }
    return Optional.of(shown);
  }

  private static ObjectNode wave(PlannedWave wave, ObjectMapper json) {
    ObjectNode shown =
        json.valueToTree(
            new PlannedWave(
                wave.number(), wave.waveSpec(), wave.canary(), wave.cumulativeNodes(), List.of()));
    shown.put("batchCount", wave.batches().size());
    shown.put("nodeCount", wave.batches().stream().mapToInt(b -> b.nodes().size()).sum());
    ArrayNode batches = shown.putArray("batches");
    for (NodeBatch batch : first(wave.batches())) {
      ObjectNode listed = json.valueToTree(new NodeBatch(batch.number(), batch.zones(), List.of()));
      listed.remove("nodes");
      listed.put("nodeCount", batch.nodes().size());
      batches.add(listed);
    }
    return shown;
  }

  private static <T> List<T> first(List<T> all) {
    return all.subList(0, Math.min(LISTED, all.size()));
  }
}
