package io.fleetwave.core.provenance;

import io.fleetwave.events.json.WireNamed;
import io.fleetwave.events.node.StepKind;

/**
 * What of a node a change is about. Each GPU aspect names the agent's steps that change it, so a
 * change can be matched with the step that caused it; the driver is changed outside the agent (a
 * driver executor, an OS image) and so by no step.
 */
@WireNamed.Called("aspect")
public enum Aspect implements WireNamed {
  DRIVER,
  MIG_MODE,
  MIG_LAYOUT,
  VFS,
  HEALTH;

  public boolean changedBy(StepKind kind) {
    return switch (this) {
      case DRIVER -> false;
      case MIG_MODE -> kind == StepKind.SET_MIG_MODE || kind == StepKind.RESET_GPU;
      // Turning MIG off or resetting a GPU destroys its instances too.
      case MIG_LAYOUT ->
          kind == StepKind.CREATE_INSTANCE
              || kind == StepKind.DESTROY_INSTANCE
              || kind == StepKind.SET_MIG_MODE
              || kind == StepKind.RESET_GPU;
      case VFS -> kind == StepKind.ENABLE_VFS || kind == StepKind.DISABLE_VFS;
      // A reset is the only thing the agent does that can make a GPU healthy again.
      case HEALTH -> kind == StepKind.RESET_GPU;
    };
  }

  /** The aspect of a wire name; an unknown one is refused with the allowed ones. */
  @Override
  public String toString() {
    return wireName();
  }
}
