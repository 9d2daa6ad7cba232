package io.fleetwave.agent.reconcile;

import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepFailed;
import java.util.Objects;

/** How running a plan ended: every run ends in exactly one of these, in bounded time. */
public sealed interface Outcome {

  /** Every step succeeded: the node matches the spec. */
  record Applied(SpecApplied event) implements Outcome {
    public Applied {
      Objects.requireNonNull(event, "event");
    }
  }

  /**
   * A step failed and the plan stopped there.
   *
   * @param gateHeld whether the device-plugin gate is (still) held, as it must be while the GPUs do
   *     not match the spec
   */
  record Failed(StepFailed event, boolean gateHeld) implements Outcome {
    public Failed {
      Objects.requireNonNull(event, "event");
    }
  }
}
