package io.fleetwave.events.security;

/** Why an agent refuses a command; {@link #code()} goes into the SpecRejected event. */
public enum Rejection {
  UNSIGNED("unsigned"),
  /** The signature does not verify against the control plane's key: forged or tampered. */
  FORGED("forged"),
  /** Addressed to another node. */
  WRONG_NODE("wrong-node"),
  EXPIRED("expired"),
  /** Generation not newer than the one the agent already applied. */
  REPLAYED("replayed");

  private final String code;

  Rejection(String code) {
    this.code = code;
  }

  public String code() {
    return code;
  }
}
