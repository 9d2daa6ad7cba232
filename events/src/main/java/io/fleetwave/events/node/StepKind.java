package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** The kinds of step a node reconcile is made of, in the order a plan runs them. */
public enum StepKind {
  HOLD_GATE("hold-gate"),
  CLEAR_VGPU_TYPE("clear-vgpu-type"),
  DESTROY_INSTANCE("destroy-instance"),
  DISABLE_VFS("disable-vfs"),
  SET_MIG_MODE("set-mig-mode"),
  RESET_GPU("reset-gpu"),
  ENABLE_VFS("enable-vfs"),
  CREATE_INSTANCE("create-instance"),
  SET_VGPU_TYPE("set-vgpu-type"),
  RELEASE_GATE("release-gate");

  private final String wireName;

  StepKind(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator
  public static StepKind fromWireName(String name) {
    for (StepKind kind : values()) {
      if (kind.wireName.equals(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException("unknown step kind '" + name + "'");
  }

  @Override
  public String toString() {
    return wireName;
  }
}
