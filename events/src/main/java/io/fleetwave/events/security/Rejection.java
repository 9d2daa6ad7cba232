package io.fleetwave.events.security;

import io.fleetwave.events.json.WireNamed;

/** Why an agent refuses a command; its {@link #wireName()} is the SpecRejected event's code. */
public enum Rejection implements WireNamed {
  UNSIGNED,
  /**
   * Signed but naming no key id: a record from before key ids (and issue times in the signature).
   * Refused, since nothing says which key it claims, and its signature covers neither the stream
   * nor the key; the control plane re-publishes the spec signed anew.
   */
  NO_KEY_ID,
  /** Names a key this agent does not trust: never configured, or retired by a key rotation. */
  UNKNOWN_KEY,
  /** The signature does not verify against the named key: forged or tampered. */
  FORGED,
  /** Signed for the other stream: a spec on the commands topic, or a command on the desired one. */
  WRONG_STREAM,
  /** Addressed to another node. */
  WRONG_NODE,
  /** Issued later than the agent's clock plus the clock-skew tolerance. */
  NOT_YET_VALID,
  /** Past its expiry, by more than the clock-skew tolerance. */
  EXPIRED,
  /** Generation not newer than the one the agent already applied. */
  REPLAYED;
}
