package io.fleetwave.events.node;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.fleetwave.events.json.WireNamed;

/** MIG mode of one GPU; {@code UNSUPPORTED} for GPUs that are not MIG capable. */
public enum MigMode implements WireNamed {
  ENABLED,
  DISABLED,
  UNSUPPORTED;

  @JsonCreator
  public static MigMode fromWireName(String name) {
    return WireNamed.parse(MigMode.class, name, "MIG mode");
  }
}
