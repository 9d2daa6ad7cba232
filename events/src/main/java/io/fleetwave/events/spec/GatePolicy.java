package io.fleetwave.events.spec;

import io.fleetwave.events.json.WireNamed;

/** How a node's device-plugin gate follows its spec (hardware-model.md rule 6). */
@WireNamed.Called("gate policy")
public enum GatePolicy implements WireNamed {
  /**
   * Held from boot and while the spec is being applied; released once, when every GPU matches the
   * spec. The normal case: the device plugin scans once, so it must only see the final devices.
   */
  HOLD_UNTIL_APPLIED,
  /** Never held by a spec change (nodes whose device plugin rescans by itself). */
  OPEN;
}
