package io.fleetwave.core.rollout.plan;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How long a node takes to apply a rollout's change, measured in past rollouts per kind of node
 * (host kind and GPU models, as RolloutPlanner.kind names it: {@code ubuntu/H100-80GB}). A kind
 * never measured counts at {@link #DEFAULT}, and the plan says which kinds did.
 *
 * @param byKind the typical (median) apply time of each measured kind
 */
public record ApplyTimes(Map<String, Duration> byKind) {
  /** What a node of a kind never measured is expected to take. */
  public static final Duration DEFAULT = Duration.ofMinutes(5);

  /** Nothing measured yet: every kind counts at the default. */
  public static final ApplyTimes NONE = new ApplyTimes(Map.of());

  public ApplyTimes {
    byKind = Map.copyOf(byKind);
  }

  public Optional<Duration> measured(String kind) {
    return Optional.ofNullable(byKind.get(kind));
  }
}
