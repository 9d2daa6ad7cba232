package io.fleetwave.core.rollout.plan;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Splits planned nodes into waves and batches.
 *
 * <p>Order: nodes are grouped by kind (host kind + GPU models) and taken round-robin across the
 * groups, by name within a group, so the canary and the early waves cover as many kinds of node as
 * their size allows.
 *
 * <p>Waves: wave i holds the nodes up to its cumulative size {@code min(N, max(previous,
 * resolve(spec_i, N)))}, percentages rounding up; a wave that adds nobody is dropped. Batches:
 * within a wave, each batch takes at most maxUnavailable nodes from at most maxZonesInFlight zones,
 * choosing the zones with the most nodes left (by name on a tie) and taking from them in turn, so
 * waves finish in as few batches as the limits allow; a zone whose next node would take the batch
 * past the GPU budget gives no more nodes to that batch.
 */
final class WaveScheduler {
  private WaveScheduler() {}

  /** A planned node with the kind it counts as for ordering. */
  record Candidate(NodePlan plan, String kind) {}

  static List<PlannedWave> schedule(
      List<Candidate> candidates,
      List<String> waveSpecs,
      List<Quantity> waves,
      int maxUnavailable,
      Integer maxZones,
      GpuBudget budget) {
    List<NodePlan> order = interleave(candidates);
    int total = order.size();
    List<PlannedWave> out = new ArrayList<>();
    int done = 0;
    for (int i = 0; i < waves.size() && done < total; i++) {
      int cumulative = Math.min(total, Math.max(done, waves.get(i).resolve(total)));
      if (cumulative == done) {
        continue;
      }
      List<NodeBatch> batches =
          batches(order.subList(done, cumulative), maxUnavailable, maxZones, budget);
      out.add(
          new PlannedWave(out.size() + 1, waveSpecs.get(i), out.isEmpty(), cumulative, batches));
      done = cumulative;
    }
    return out;
  }

  private static List<NodePlan> interleave(List<Candidate> candidates) {
    Map<String, Deque<NodePlan>> groups = new TreeMap<>();
    candidates.stream()
        .sorted(Comparator.comparing((Candidate c) -> c.plan().node()))
        .forEach(c -> groups.computeIfAbsent(c.kind(), k -> new ArrayDeque<>()).add(c.plan()));
    List<NodePlan> order = new ArrayList<>();
    while (order.size() < candidates.size()) {
      for (Deque<NodePlan> group : groups.values()) {
        if (!group.isEmpty()) {
          order.add(group.poll());
        }
      }
    }
    return order;
  }

  private static List<NodeBatch> batches(
      List<NodePlan> wave, int maxUnavailable, Integer maxZones, GpuBudget budget) {
    Map<String, Deque<NodePlan>> byZone = new LinkedHashMap<>();
    wave.forEach(n -> byZone.computeIfAbsent(n.zone(), z -> new ArrayDeque<>()).add(n));
    List<NodeBatch> batches = new ArrayList<>();
    int left = wave.size();
    while (left > 0) {
      List<Deque<NodePlan>> chosen =
          byZone.entrySet().stream()
              .filter(e -> !e.getValue().isEmpty())
              .sorted(
                  Comparator.comparingInt(
                          (Map.Entry<String, Deque<NodePlan>> e) -> -e.getValue().size())
                      .thenComparing(Map.Entry::getKey))
              .limit(maxZones == null ? Long.MAX_VALUE : maxZones)
              .map(Map.Entry::getValue)
              .toList();
      List<NodePlan> batch = new ArrayList<>();
      GpuBudget.Offline offline = budget.offline();
      boolean took = true;
      while (batch.size() < maxUnavailable && took) {
        took = false;
        for (Deque<NodePlan> zone : chosen) {
          if (batch.size() < maxUnavailable && !zone.isEmpty() && offline.admits(zone.peek())) {
            NodePlan next = zone.poll();
            offline.add(next);
            batch.add(next);
            took = true;
          }
        }
      }
      if (batch.isEmpty()) {
        // The planner refuses a node that alone exceeds the budget, so this cannot happen.
        throw new IllegalStateException("no node of the wave fits the GPU budget " + budget);
      }
      left -= batch.size();
      List<String> zones = batch.stream().map(NodePlan::zone).distinct().sorted().toList();
      batches.add(new NodeBatch(batches.size() + 1, zones, batch));
    }
    return batches;
  }
}
