package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.rollout.Phase;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What the decider asks of a run every round, kept as the fold changes nodes rather than found by a
 * walk over every planned node: the nodes in flight, the nodes waiting to be released, the failure
 * counts the thresholds compare, and per wave its nodes not yet started and whether it is settled.
 * A round of a 10,000-node rollout touches the few nodes whose events it folds, not all 10,000.
 *
 * <p>{@link RolloutRun} removes a node before it changes it and adds it after, so each view holds
 * exactly the nodes whose current state the matching {@link NodeRun} predicate accepts.
 */
public final class RunIndex {
  /** By plan order, so the views come out in the order a walk of the plan gives. */
  private final NavigableMap<Integer, NodeRun> inFlight = new TreeMap<>();

  private final NavigableMap<Integer, NodeRun> releasePending = new TreeMap<>();

  /** Per wave, its nodes not yet started, by plan order. */
  private final Map<Integer, NavigableMap<Integer, NodeRun>> pendingByWave = new HashMap<>();

  /** Per wave, how many of its nodes are not settled (see {@link #waveSettled}). */
  private final Map<Integer, Integer> unsettledByWave = new HashMap<>();

  private final Map<Integer, Integer> forwardFailedByWave = new HashMap<>();
  private final Map<Integer, Integer> rollbackFailedByWave = new HashMap<>();
  private int forwardFailed;
  private int rollbackFailed;

  /** Only {@link RolloutRun} keeps one (public for the architecture rule's list only). */
  RunIndex() {}

  void add(NodeRun node) {
    count(node, 1);
    if (node.state() == NodeState.PENDING) {
      pendingByWave.computeIfAbsent(node.wave(), w -> new TreeMap<>()).put(node.order(), node);
    }
    if (node.inFlight()) {
      inFlight.put(node.order(), node);
    }
    if (node.releasePending()) {
      releasePending.put(node.order(), node);
    }
  }

  void remove(NodeRun node) {
    count(node, -1);
    NavigableMap<Integer, NodeRun> pending = pendingByWave.get(node.wave());
    if (pending != null) {
      pending.remove(node.order());
    }
    inFlight.remove(node.order());
    releasePending.remove(node.order());
  }

  private void count(NodeRun node, int delta) {
    if (!settled(node)) {
      unsettledByWave.merge(node.wave(), delta, Integer::sum);
    }
    if (failedForward(node)) {
      forwardFailed += delta;
      forwardFailedByWave.merge(node.wave(), delta, Integer::sum);
    }
    if (node.phase() == Phase.ROLLBACK && node.state() == NodeState.FAILED) {
      rollbackFailed += delta;
      rollbackFailedByWave.merge(node.wave(), delta, Integer::sum);
    }
  }

  /** Finished and, where it was taken out of service, back in service (or kept out). */
  private static boolean settled(NodeRun node) {
    return node.state().finished() && !node.releasePending();
  }

  /** Failed forward: in the forward phase now, or before its rollback started. */
  private static boolean failedForward(NodeRun node) {
    return node.phase() == Phase.FORWARD
        ? node.state() == NodeState.FAILED
        : node.forwardOutcome() == NodeState.FAILED;
  }

  /** The wave's nodes not yet started, in plan order: a view, read before the run changes. */
  Collection<NodeRun> pending(int wave) {
    NavigableMap<Integer, NodeRun> pending = pendingByWave.get(wave);
    return pending == null ? List.of() : Collections.unmodifiableCollection(pending.values());
  }

  /** Whether every node of the wave finished and none waits to be released. */
  boolean waveSettled(int wave) {
    return unsettledByWave.getOrDefault(wave, 0) == 0;
  }

  List<NodeRun> inFlight() {
    return List.copyOf(inFlight.values());
  }

  List<NodeRun> releasePending() {
    return List.copyOf(releasePending.values());
  }

  /** Failed nodes of a phase, in one wave or (wave 0) in all. */
  int failed(Phase phase, int wave) {
    if (phase == Phase.FORWARD) {
      return wave == 0 ? forwardFailed : forwardFailedByWave.getOrDefault(wave, 0);
    }
    return wave == 0 ? rollbackFailed : rollbackFailedByWave.getOrDefault(wave, 0);
  }
}
