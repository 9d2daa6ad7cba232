package io.fleetwave.core.provenance;

import java.util.Map;
import java.util.TreeMap;

/**
 * What the change fold keeps of one node between batches: its last observation, whether the driver
 * and the GPUs have been reported at all (a first report is a baseline, not a change), the newest
 * spec generation the agent accepted, and the aspects the agent's steps touched since the last
 * inventory.
 *
 * @param touched per aspect, the step that changed it since the last inventory
 */
public record NodeProvenance(
    Observation observation,
    boolean driverSeen,
    boolean gpusSeen,
    long acceptedGeneration,
    Map<AspectKey, Touch> touched) {

  public static final NodeProvenance NONE =
      new NodeProvenance(Observation.NONE, false, false, 0, Map.of());

  public NodeProvenance {
    touched = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(touched));
  }

  /**
   * A step of {@code generation} changed the aspect; {@code running} while only its StepStarted has
   * been seen (an inventory taken meanwhile may show the change half done, and the next one too).
   */
  public record Touch(long generation, boolean running) {}
}
