package io.fleetwave.controlplane.readmodel;

import java.time.Instant;
import java.util.List;

/**
 * A node whose observed state differs from what it should be, since when, and why.
 *
 * @param since the earliest of its causes' (null when none is known)
 * @param lastSeen its newest event
 */
public record DriftView(String node, Instant since, Instant lastSeen, List<Cause> causes) {

  /** The causes, by their wire names. */
  public static final String NOT_CONVERGED = "not-converged";

  public static final String CHANGED_OUTSIDE = "changed-outside";
  public static final String AGENT_SILENT = "agent-silent";
  public static final List<String> CAUSES = List.of(NOT_CONVERGED, CHANGED_OUTSIDE, AGENT_SILENT);

  /**
   * One reason the node drifted.
   *
   * @param cause not-converged (the agent has not reached the desired spec: {@code reason} says
   *     why, in the agent's words), changed-outside (what Fleetwave set was changed by something it
   *     did not ask for: {@code aspects}), agent-silent (no event since {@code since})
   * @param since when it began: the spec's time, the first change outside, the last event
   */
  public record Cause(String cause, Instant since, String reason, List<Aspect> aspects) {}

  /**
   * One aspect changed outside Fleetwave: what it was before the first such change ({@code
   * expected}), what it is now ({@code observed}), and when that first change was seen.
   */
  public record Aspect(
      String aspect, Integer gpu, String expected, String observed, Instant since) {}
}
