package io.fleetwave.events.node;

import io.fleetwave.events.json.WireNamed;

/** MIG mode of one GPU; {@code UNSUPPORTED} for GPUs that are not MIG capable. */
@WireNamed.Called("MIG mode")
public enum MigMode implements WireNamed {
  ENABLED,
  DISABLED,
  UNSUPPORTED;
}
