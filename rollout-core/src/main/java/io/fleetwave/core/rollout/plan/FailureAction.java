package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.json.WireNamed;

/** What a rollout does when a failure threshold is crossed. */
public enum FailureAction implements WireNamed {
  PAUSE,
  ROLLBACK;

  public static FailureAction fromWireName(String name) {
    return WireNamed.parse(FailureAction.class, name, "failure action");
  }
}
