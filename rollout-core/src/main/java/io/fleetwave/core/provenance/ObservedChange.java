package io.fleetwave.core.provenance;

import java.time.Instant;

/**
 * One aspect of one node seen to change, with what was going on at that moment as the node's own
 * events tell it: derived from fleet.node-events alone, so a rebuild derives the same ones.
 *
 * @param epoch the (epoch, seq) of the event that revealed it
 * @param time that event's time: when the change was seen
 * @param before the value before (null: the GPU was not there)
 * @param after the value now (null: the GPU went away)
 * @param stepGeneration the spec generation whose step changed this aspect, or null
 * @param acceptedGeneration the newest spec generation the agent had accepted (0: none)
 * @param bootId the boot this change came with, or null: an agent run that starts reports the
 *     node's facts and GPUs first and its boot (NodeBooted) after, so the changes those first
 *     reports reveal learn their boot from the NodeBooted of the same run ({@link #withBoot})
 */
public record ObservedChange(
    String node,
    long epoch,
    long seq,
    Instant time,
    AspectKey key,
    String before,
    String after,
    Long stepGeneration,
    long acceptedGeneration,
    String bootId) {

  /** This change, known now to have come with a boot. */
  public ObservedChange withBoot(String boot) {
    return new ObservedChange(
        node, epoch, seq, time, key, before, after, stepGeneration, acceptedGeneration, boot);
  }
}
