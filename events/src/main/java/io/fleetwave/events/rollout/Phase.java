package io.fleetwave.events.rollout;

import io.fleetwave.events.json.WireNamed;

/** Whether a node is being moved to the rollout's change or back to where it was. */
@WireNamed.Called("phase")
public enum Phase implements WireNamed {
  FORWARD,
  ROLLBACK;
}
