package io.fleetwave.events.node;

import io.fleetwave.events.json.WireNamed;

/** The kinds of step a node reconcile is made of, in the order a plan runs them. */
@WireNamed.Called("step kind")
public enum StepKind implements WireNamed {
  HOLD_GATE,
  CLEAR_VGPU_TYPE,
  DESTROY_INSTANCE,
  DISABLE_VFS,
  SET_MIG_MODE,
  RESET_GPU,
  ENABLE_VFS,
  CREATE_INSTANCE,
  SET_VGPU_TYPE,
  RELEASE_GATE;

  @Override
  public String toString() {
    return wireName();
  }
}
