package io.fleetwave.controlplane.rollout.store;

import java.util.List;

/**
 * Which planned nodes of a rollout to list: any of {@code states} (pending, in-flight, succeeded,
 * failed) and any of {@code waves}; an empty list does not filter.
 */
public record RolloutNodeFilter(List<String> states, List<Integer> waves) {
  public static final RolloutNodeFilter ALL = new RolloutNodeFilter(List.of(), List.of());

  public RolloutNodeFilter {
    states = List.copyOf(states);
    waves = List.copyOf(waves);
  }
}
