package io.fleetwave.core.provenance;

import io.fleetwave.events.json.WireNamed;

/** Why an observed change happened. */
public enum ChangeCause implements WireNamed {
  /** A spec generation asked for it (set by a person, or by a rollout). */
  SPEC,
  /** The node rebooted: MIG, VFs and instances do not survive one. */
  REBOOT,
  /** Nothing Fleetwave asked for: drift (a person with nvidia-smi, a failing GPU). */
  OUTSIDE;

  @Override
  public String toString() {
    return wireName();
  }
}
