package io.fleetwave.core.rollout.plan;

/** Why a targeted node is left out of a rollout. */
public enum ExclusionReason {
  /** Named in the target but not in the fleet. */
  NOT_IN_FLEET,
  /** No entry of the MIG config matches any of its GPUs. */
  NO_MATCHING_GPU,
  /** The MIG config matches a GPU whose model cannot take the layout. */
  LAYOUT_INVALID,
  /** The driver version cannot serve its GPUs, or cannot be delivered to its OS or kernel. */
  DRIVER_CANNOT_SERVE,
  /** Nothing would change. */
  ALREADY_AT_TARGET,
  /** An admin revoked the node (its identity); it is left out until it is re-admitted. */
  REVOKED
}
