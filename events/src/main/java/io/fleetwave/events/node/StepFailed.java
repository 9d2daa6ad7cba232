package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

/**
 * A step failed (refused by the hardware, or past its deadline); the plan stopped here. The step's
 * deadline is in {@link PlannedStep#deadlineMillis()}.
 *
 * @param reason why, e.g. {@code GPU 0: reset failed: compute process 4711 (python) runs}
 * @param holder what blocks the step (a process, nvidia-persistenced, "VFs enabled"), or null
 */
public record StepFailed(
    long generation, PlannedStep step, String reason, String holder, long elapsedMillis)
    implements NodeEvent {
  public StepFailed {
    positive(generation, "generation");
    notNull(step, "step");
    notBlank(reason, "reason");
    if (holder != null) {
      notBlank(holder, "holder");
    }
    notNegative(elapsedMillis, "elapsedMillis");
  }
}
