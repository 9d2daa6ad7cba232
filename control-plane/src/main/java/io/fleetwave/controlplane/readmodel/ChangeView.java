package io.fleetwave.controlplane.readmodel;

import java.time.Instant;
import java.util.UUID;

/**
 * One observed change of a node and why it happened.
 *
 * @param aspect driver, mig-mode, mig-layout, vfs or health
 * @param gpu the GPU's index; null for the driver
 * @param before the value before (null: the GPU was not there)
 * @param after the value after (null: the GPU went away)
 * @param cause spec, reboot or outside (nothing Fleetwave asked for: drift)
 * @param generation the spec generation that asked for it (cause spec), else null
 * @param askedBy the rollout or the person behind that generation, where still known
 * @param bootId the boot the change came with, or null
 * @param epoch with {@code seq}: the node event that revealed it
 */
public record ChangeView(
    String node,
    Instant time,
    String aspect,
    Integer gpu,
    String before,
    String after,
    String cause,
    Long generation,
    AskedBy askedBy,
    String bootId,
    long epoch,
    long seq) {

  /**
   * Who asked for a spec generation: a rollout (its id, name, wave, phase and who created it), or a
   * person who set the spec ({@code rollout} null).
   */
  public record AskedBy(String actor, RolloutRef rollout) {}

  public record RolloutRef(UUID id, String name, int wave, String phase) {}
}
