package io.fleetwave.events.security;

/**
 * Why a record of fleet.node-events is not accepted as coming from its node; {@link #text()} starts
 * the dead letter's reason.
 */
public enum NodeEventRefusal {
  UNSIGNED("unsigned node event"),
  /** The key is enrolled, by a node other than the one the record speaks for. */
  ANOTHER_NODES_KEY("signed by another node's key"),
  /** No node enrolled this key. */
  UNKNOWN_KEY("signed by a key no node enrolled"),
  /** The node's key was revoked. */
  REVOKED("signed by a revoked key"),
  /** The key is the node's, the signature does not match the bytes: forged or altered. */
  BAD_SIGNATURE("signature does not verify against the node's enrolled key"),
  /** The key is the node's, the record carries a MAC that does not match and no signature. */
  BAD_MAC("MAC does not verify against the key the node agreed, and no signature");

  private final String text;

  NodeEventRefusal(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }
}
