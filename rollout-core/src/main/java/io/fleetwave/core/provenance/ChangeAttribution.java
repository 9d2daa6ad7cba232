package io.fleetwave.core.provenance;

import java.util.OptionalLong;

/**
 * The cause of an observed change, in this order: a step of a spec generation changed it; or it is
 * the driver version a spec generation sent to the node before the change asked for (drivers change
 * outside the agent, so no step names them); or it was the first report after a boot (a boot loses
 * MIG, VFs and instances, never asks for a driver); else nothing Fleetwave asked for did it.
 */
public final class ChangeAttribution {
  private ChangeAttribution() {}

  /** A cause, and the spec generation for {@link ChangeCause#SPEC} (else null). */
  public record Attribution(ChangeCause cause, Long generation) {}

  /**
   * @param driverAskedBy for a driver change, the newest spec generation sent to the node before
   *     the change that asked for exactly its new version, where there is one (the desired-spec and
   *     rollout facts, which the node's own events do not carry); ignored for other aspects
   */
  public static Attribution attribute(ObservedChange change, OptionalLong driverAskedBy) {
    if (change.stepGeneration() != null) {
      return new Attribution(ChangeCause.SPEC, change.stepGeneration());
    }
    if (change.key().aspect() == Aspect.DRIVER) {
      return driverAskedBy.isPresent()
          ? new Attribution(ChangeCause.SPEC, driverAskedBy.getAsLong())
          : new Attribution(ChangeCause.OUTSIDE, null);
    }
    if (change.bootId() != null) {
      return new Attribution(ChangeCause.REBOOT, null);
    }
    return new Attribution(ChangeCause.OUTSIDE, null);
  }
}
