package io.fleetwave.core.rollout.disruption;

import io.fleetwave.events.rollout.Phase;
import java.util.Objects;
import java.util.UUID;

/**
 * One node's time out of service, as the drain needs it.
 *
 * @param disruption what leaves the node first
 * @param migChange whether the change reconfigures MIG (then the GPU Operator's MIG labels are
 *     kept: {@code nvidia.com/mig.config}, its state, the paused operands)
 * @param migConfig the {@code nvidia.com/mig.config} value this change moves the node to, or null
 *     for none (the label is removed)
 */
public record NodeOutage(
    UUID rollout,
    String node,
    Phase phase,
    Disruption disruption,
    boolean migChange,
    String migConfig) {
  public NodeOutage {
    Objects.requireNonNull(rollout, "rollout");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(disruption, "disruption");
  }

  /** Who takes the node out of service, as recorded on the node: {@code rollout/<id>}. */
  public String owner() {
    return "rollout/" + rollout;
  }
}
