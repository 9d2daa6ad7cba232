package io.fleetwave.events.node;

import io.fleetwave.events.json.WireNamed;

/** Health of one GPU as the agent sees it (XID errors, ECC, retired pages folded into one word). */
@WireNamed.Called("GPU health")
public enum GpuHealth implements WireNamed {
  HEALTHY,
  DEGRADED,
  FAILED;
}
