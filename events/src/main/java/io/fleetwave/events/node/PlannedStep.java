package io.fleetwave.events.node;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNegative;
import static io.fleetwave.events.payload.Require.notNull;
import static io.fleetwave.events.payload.Require.positive;

/**
 * One step of a reconcile as the progress events describe it.
 *
 * @param ordinal position in its plan, from 0
 * @param kind what the step does
 * @param gpu the GPU it acts on, or null for node-wide steps (the gate)
 * @param detail human-readable arguments, e.g. {@code 3g.71gb at slice 4}
 * @param deadlineMillis how long the step may take before it fails
 */
public record PlannedStep(
    int ordinal, StepKind kind, Integer gpu, String detail, long deadlineMillis) {
  public PlannedStep {
    notNegative(ordinal, "ordinal");
    notNull(kind, "kind");
    if (gpu != null) {
      notNegative(gpu, "gpu");
    }
    notBlank(detail, "detail");
    positive(deadlineMillis, "deadlineMillis");
  }
}
