package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.core.rollout.decide.EffectReport;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.disruption.NodeOutage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The effects the log announced that are still to be carried out (again), in one place: in-flight
 * nodes whose spec and driver request are to be handed over, now (a leader that took over) or once
 * the broker is back; finished nodes still to be put back in service (or kept out); nodes of a
 * stopped rollout whose drain is still running, undone when it reports. It decides nothing: the
 * takeover rebuilds it from the folded log ({@link #rebuild}), so a new leader carries out what the
 * old one may not have, and every effect is idempotent.
 */
final class EffectLedger {
  // Hand-overs due at a time (Instant.MIN: at once). Written by effects that found the broker away.
  private final Map<String, Instant> handOvers = new ConcurrentHashMap<>();
  private final Set<String> releases = new HashSet<>();
  private final Map<String, NodeOutage> abandoned = new HashMap<>();

  /** What a leader taking over owes a folded rollout: every in-flight and release-pending node. */
  void rebuild(RolloutRun run) {
    for (NodeRun node : run.inFlight()) {
      handOvers.put(key(run.id(), node.node()), Instant.MIN);
    }
    for (NodeRun node : run.releasePending()) {
      releases.add(key(run.id(), node.node()));
    }
  }

  /** Forgets the hand-overs and releases owed (a takeover rebuilds them from the log). */
  void clear() {
    handOvers.clear();
    releases.clear();
  }

  /** These nodes' hand-over is due again at {@code due} (the broker did not take their specs). */
  void handOverAt(UUID rollout, List<String> nodes, Instant due) {
    nodes.forEach(node -> handOvers.put(key(rollout, node), due));
  }

  /** The in-flight nodes whose hand-over is due now, each taken off the ledger. */
  List<String> dueHandOvers(RolloutRun run, Instant now) {
    List<String> due = new ArrayList<>();
    for (NodeRun node : run.inFlight()) {
      String key = key(run.id(), node.node());
      Instant at = handOvers.get(key);
      if (at != null && !now.isBefore(at) && handOvers.remove(key, at)) {
        due.add(node.node());
      }
    }
    return due;
  }

  /** The finished nodes whose release is owed, each taken off the ledger. */
  List<NodeRun> dueReleases(RolloutRun run) {
    return run.releasePending().stream()
        .filter(node -> releases.remove(key(run.id(), node.node())))
        .toList();
  }

  /** A node of a stopped rollout still draining: its pauses are undone once the drain reports. */
  void abandonWhenDrained(NodeOutage outage, long generation) {
    abandoned.put(key(outage.rollout(), outage.node()) + "/" + generation, outage);
  }

  /** The abandoned node this report is about, taken off the ledger; null if none. */
  NodeOutage abandoned(EffectReport report) {
    return abandoned.remove(key(report.rollout(), report.node()) + "/" + report.generation());
  }

  private static String key(UUID rollout, String node) {
    return rollout + "/" + node;
  }
}
