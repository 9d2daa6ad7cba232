package io.fleetwave.core.provenance;

/** Why an observed change happened. */
public enum ChangeCause {
  /** A spec generation asked for it (set by a person, or by a rollout). */
  SPEC("spec"),
  /** The node rebooted: MIG, VFs and instances do not survive one. */
  REBOOT("reboot"),
  /** Nothing Fleetwave asked for: drift (a person with nvidia-smi, a failing GPU). */
  OUTSIDE("outside");

  private final String wireName;

  ChangeCause(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  @Override
  public String toString() {
    return wireName;
  }
}
