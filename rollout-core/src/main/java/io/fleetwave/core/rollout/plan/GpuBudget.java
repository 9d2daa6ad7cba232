package io.fleetwave.core.rollout.plan;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How many GPUs a rollout may have offline at once ({@link RolloutStrategy#maxGpusOffline()}
 * overall, {@link RolloutStrategy#maxGpusOfflinePer()} per value of a label): maxUnavailable counts
 * nodes, but an 8-GPU node and a 1-GPU node are not the same loss. A node counts all its GPUs from
 * its start until it is back in service, like its maxUnavailable slot. A node without a bounded
 * label counts only against the overall bound.
 *
 * <p>The planner cuts batches within it and refuses a node that alone exceeds it (it could never
 * start); the decider starts no node that would exceed it.
 *
 * @param maxGpusOffline null: no overall bound
 * @param maxGpusOfflinePer label key to the most GPUs offline at once among the nodes of any one of
 *     its values
 */
public record GpuBudget(Integer maxGpusOffline, Map<String, Integer> maxGpusOfflinePer) {
  /** No bound: only maxUnavailable limits the rollout. */
  public static final GpuBudget NONE = new GpuBudget(null, Map.of());

  public GpuBudget {
    maxGpusOfflinePer =
        maxGpusOfflinePer == null
            ? Map.of()
            : Collections.unmodifiableSortedMap(new TreeMap<>(maxGpusOfflinePer));
  }

  public static GpuBudget of(RolloutStrategy strategy) {
    return new GpuBudget(strategy.maxGpusOffline(), strategy.maxGpusOfflinePer());
  }

  public boolean bounded() {
    return maxGpusOffline != null || !maxGpusOfflinePer.isEmpty();
  }

  /**
   * Why {@code node} could never go offline within the budget even alone (as a 422 names it), or
   * empty when it can.
   */
  public Optional<RolloutSpecProblem> exceededAlone(NodePlan node) {
    if (maxGpusOffline != null && node.gpus() > maxGpusOffline) {
      return problem(
          "strategy.maxGpusOffline",
          "node "
              + node.node()
              + " has "
              + node.gpus()
              + " GPUs, more than maxGpusOffline "
              + maxGpusOffline
              + " allows offline at once: it could never be taken out of service");
    }
    for (Map.Entry<String, Integer> bound : maxGpusOfflinePer.entrySet()) {
      String value = node.budgetLabels().get(bound.getKey());
      if (value != null && node.gpus() > bound.getValue()) {
        return problem(
            "strategy.maxGpusOfflinePer." + bound.getKey(),
            "node "
                + node.node()
                + " ("
                + bound.getKey()
                + "="
                + value
                + ") has "
                + node.gpus()
                + " GPUs, more than maxGpusOfflinePer."
                + bound.getKey()
                + " "
                + bound.getValue()
                + " allows offline at once: it could never be taken out of service");
      }
    }
    return Optional.empty();
  }

  private static Optional<RolloutSpecProblem> problem(String field, String message) {
    return Optional.of(new RolloutSpecProblem(field, message));
  }

  /** An empty tally of what is offline. */
  public Offline offline() {
    return new Offline();
  }

  /** The GPUs offline at one moment, overall and per value of each bounded label. */
  public final class Offline {
    private int total;
    private final Map<String, Map<String, Integer>> byLabel = new HashMap<>();

    private Offline() {}

    /** Whether taking {@code node} offline too stays within the budget. */
    public boolean admits(NodePlan node) {
      if (maxGpusOffline != null && total + node.gpus() > maxGpusOffline) {
        return false;
      }
      for (Map.Entry<String, Integer> bound : maxGpusOfflinePer.entrySet()) {
        String value = node.budgetLabels().get(bound.getKey());
        if (value != null && offline(bound.getKey(), value) + node.gpus() > bound.getValue()) {
          return false;
        }
      }
      return true;
    }

    public void add(NodePlan node) {
      total += node.gpus();
      for (String key : maxGpusOfflinePer.keySet()) {
        String value = node.budgetLabels().get(key);
        if (value != null) {
          byLabel
              .computeIfAbsent(key, k -> new HashMap<>())
              .merge(value, node.gpus(), Integer::sum);
        }
      }
    }

    public int total() {
      return total;
    }

    /** GPUs offline among the nodes whose label {@code key} is {@code value}. */
    public int offline(String key, String value) {
      return byLabel.getOrDefault(key, Map.of()).getOrDefault(value, 0);
    }
  }
}
