package io.fleetwave.controlplane.api;

import io.fleetwave.controlplane.fixtures.NodeActions;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.util.List;

/**
 * The spec the provenance and drift cases start from: a person turns MIG on for GPU 0 of a node
 * through the API, and the node's agent applies it in one step.
 */
final class MigOnGpu0 {
  private static final PlannedStep STEP =
      new PlannedStep(0, StepKind.SET_MIG_MODE, 0, "enable MIG", 60_000);

  private MigOnGpu0() {}

  /** PUTs the spec as a person does; the generation published. */
  static long ask(String node) {
    return NodeActions.putSpec(node, "{\"gpus\": [{\"index\": 0, \"migEnabled\": true}]}");
  }

  /** What the agent reports applying it: accepted, its one step started and succeeded, applied. */
  static List<NodeEvent> applied(long generation) {
    return List.of(
        new SpecAccepted(generation, List.of(STEP)),
        new StepStarted(generation, STEP),
        new StepSucceeded(generation, STEP, 30),
        new SpecApplied(generation));
  }
}
