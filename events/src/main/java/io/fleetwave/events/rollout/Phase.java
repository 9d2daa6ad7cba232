package io.fleetwave.events.rollout;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.fleetwave.events.json.WireNamed;

/** Whether a node is being moved to the rollout's change or back to where it was. */
public enum Phase implements WireNamed {
  FORWARD,
  ROLLBACK;

  @JsonCreator
  public static Phase fromWireName(String name) {
    return WireNamed.parse(Phase.class, name, "phase");
  }
}
