package io.fleetwave.core.rollout.plan;

import io.fleetwave.events.json.WireNamed;

/** What a rollout does when a failure threshold is crossed. */
@WireNamed.Called("failure action")
public enum FailureAction implements WireNamed {
  PAUSE,
  ROLLBACK;
}
