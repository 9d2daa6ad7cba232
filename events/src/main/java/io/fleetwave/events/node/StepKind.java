package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.fleetwave.events.json.WireNamed;

/** The kinds of step a node reconcile is made of, in the order a plan runs them. */
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

  @JsonCreator
  public static StepKind fromWireName(String name) {
    return WireNamed.parse(StepKind.class, name, "step kind");
  }

  @Override
  public String toString() {
    return wireName();
  }
}
