package io.fleetwave.core.provenance;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the change fold keeps of one node between batches: its last observation, whether the driver
 * and the GPUs have been reported at all (a first report is a baseline, not a change), the newest
 * spec generation the agent accepted, the aspects the agent's steps touched since the last
 * inventory, and the aspects whose latest changes nothing Fleetwave did explains.
 *
 * @param touched per aspect, the step that changed it since the last inventory
 * @param unexplained per aspect (health aside), its trailing changes that no step and no boot
 *     explains, where it has any: what the drift view reads instead of the whole change history
 */
public record NodeProvenance(
    Observation observation,
    boolean driverSeen,
    boolean gpusSeen,
    long acceptedGeneration,
    Map<AspectKey, Touch> touched,
    Map<AspectKey, UnexplainedRun> unexplained) {

  public static final NodeProvenance NONE =
      new NodeProvenance(Observation.NONE, false, false, 0, Map.of(), Map.of());

  public NodeProvenance {
    touched = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(touched));
    unexplained = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(unexplained));
  }

  /**
   * A step of {@code generation} changed the aspect; {@code running} while only its StepStarted has
   * been seen (an inventory taken meanwhile may show the change half done, and the next one too).
   */
  public record Touch(long generation, boolean running) {}

  /**
   * The changes of one aspect since its last change that a step made (or, but for the driver, that
   * came with a boot), in log order: the first one's position, time and value before, the last
   * one's value after and epoch. A driver change may still be a spec's (the version a spec asked
   * for, known only from the desired-spec facts): the drift view reads a driver run's changes from
   * its first position on and attributes them; every other aspect's run is outside Fleetwave as it
   * stands.
   *
   * @param since the time of the first change of the run
   * @param before the value before the first change (null: the GPU was not there)
   * @param after the value after the last change (null: the GPU went away)
   * @param lastEpoch the epoch of the last change: a NodeBooted of that epoch explains the run
   */
  public record UnexplainedRun(
      long epoch, long seq, Instant since, String before, String after, long lastEpoch) {

    /** The run extended by a later unexplained change of the same aspect. */
    UnexplainedRun then(ObservedChange change) {
      return new UnexplainedRun(epoch, seq, since, before, change.after(), change.epoch());
    }

    static UnexplainedRun of(ObservedChange change) {
      return new UnexplainedRun(
          change.epoch(),
          change.seq(),
          change.time(),
          change.before(),
          change.after(),
          change.epoch());
    }
  }
}
