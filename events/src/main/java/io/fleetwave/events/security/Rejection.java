package io.fleetwave.events.security;

/** Why an agent refuses a command; {@link #code()} goes into the SpecRejected event. */
public enum Rejection {
  UNSIGNED("unsigned"),
  /**
   * Signed but naming no key id: a record from before key ids (and issue times in the signature).
   * Refused, since nothing says which key it claims, and its signature covers neither the stream
   * nor the key; the control plane re-publishes the spec signed anew.
   */
  NO_KEY_ID("no-key-id"),
  /** Names a key this agent does not trust: never configured, or retired by a key rotation. */
  UNKNOWN_KEY("unknown-key"),
  /** The signature does not verify against the named key: forged or tampered. */
  FORGED("forged"),
  /** Signed for the other stream: a spec on the commands topic, or a command on the desired one. */
  WRONG_STREAM("wrong-stream"),
  /** Addressed to another node. */
  WRONG_NODE("wrong-node"),
  /** Issued later than the agent's clock plus the clock-skew tolerance. */
  NOT_YET_VALID("not-yet-valid"),
  /** Past its expiry, by more than the clock-skew tolerance. */
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
