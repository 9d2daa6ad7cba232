package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.spec.NodeSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything the decider decides on besides the rollout's folded events.
 *
 * @param requests the operator requests not yet answered, oldest first
 * @param fleet what the fleet shows of a node
 * @param desired the current desired spec of each start candidate ({@link
 *     RolloutDecider#startCandidates}); a candidate without one has none yet
 * @param reports what effects reported about this rollout's nodes since the last round
 * @param revoked the revoked nodes of the fleet: a pending one is skipped, one in flight fails
 */
public record DeciderInput(
    Instant now,
    List<OperatorRequest> requests,
    Function<String, Observation> fleet,
    Map<String, NodeSpec> desired,
    List<EffectReport> reports,
    Set<String> revoked) {
  public DeciderInput {
    requests = List.copyOf(requests);
    desired = Map.copyOf(desired);
    reports = List.copyOf(reports);
    revoked = Set.copyOf(revoked);
  }

  /** With no node revoked. */
  public DeciderInput(
      Instant now,
      List<OperatorRequest> requests,
      Function<String, Observation> fleet,
      Map<String, NodeSpec> desired,
      List<EffectReport> reports) {
    this(now, requests, fleet, desired, reports, Set.of());
  }
}
