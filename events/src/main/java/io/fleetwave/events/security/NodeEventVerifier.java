package io.fleetwave.events.security;

import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Function;

/**
 * Decides whether a record of fleet.node-events comes from the node it speaks for: signed (headers
 * {@link NodeEventSigner#KEY_ID_HEADER} and {@link NodeEventSigner#SIGNATURE_HEADER}) by a key that
 * node enrolled and that is not revoked, over the exact value bytes. The node is the record's key;
 * the reader separately requires the key to equal the event's subject, which the signature covers.
 * A record that also carries a MAC ({@link NodeEventSigner#MAC_HEADER}) under the key its node
 * agreed ({@link EnrolledKey#macKey()}) is accepted on the MAC, which costs a thirtieth to a
 * seventieth of the signature check; one whose MAC does not match is checked by its signature as
 * any other (a MAC key agreed with a control-plane key since rotated). Runs before the value is
 * decoded, so nothing of an unauthenticated record is parsed. Pure apart from the checks;
 * thread-safe.
 */
public final class NodeEventVerifier {
  /** What a record was found to be: its node's own (and how that was shown), or refused. */
  public sealed interface Verdict permits Accepted, Refused {}

  /** How a record was shown to be its node's. */
  public enum Proof {
    /** The MAC under the key the node agreed with this reader. */
    MAC,
    /** The Ed25519 signature of the node's enrolled key. */
    SIGNATURE
  }

  /** The record is its node's own, shown by {@code proof}. */
  public record Accepted(Proof proof) implements Verdict {}

  /** A refusal: the cause and what exactly was wrong. */
  public record Refused(NodeEventRefusal cause, String detail) implements Verdict {
    /** The dead letter's reason: the cause's text, then the detail. */
    public String reason() {
      return cause.text() + ": " + detail;
    }
  }

  private NodeEventVerifier() {}

  /**
   * As {@link #check} for a record without a MAC: empty when the record is the node's own, else the
   * refusal.
   */
  public static Optional<Refused> verify(
      String node,
      byte[] value,
      String keyId,
      String signature,
      Function<String, EnrolledKey> enrolled) {
    return check(node, value, keyId, signature, null, enrolled) instanceof Refused refused
        ? Optional.of(refused)
        : Optional.empty();
  }

  /**
   * @param node the record key (the node the record claims to come from)
   * @param value the record value as read
   * @param keyId the key id header, or null
   * @param signature the signature header, or null
   * @param mac the MAC header, or null
   * @param enrolled the enrolled key of an id, or null when no node enrolled it
   */
  public static Verdict check(
      String node,
      byte[] value,
      String keyId,
      String signature,
      String mac,
      Function<String, EnrolledKey> enrolled) {
    if (keyId == null || (signature == null && mac == null)) {
      return refused(
          NodeEventRefusal.UNSIGNED,
          "record of node '"
              + node
              + "' carries no "
              + (keyId == null ? NodeEventSigner.KEY_ID_HEADER : NodeEventSigner.SIGNATURE_HEADER)
              + " header");
    }
    EnrolledKey key = enrolled.apply(keyId);
    if (key == null) {
      return refused(
          NodeEventRefusal.UNKNOWN_KEY, "key " + keyId + " is not enrolled (node '" + node + "')");
    }
    if (!key.node().equals(node)) {
      return refused(
          NodeEventRefusal.ANOTHER_NODES_KEY,
          "record of node '"
              + node
              + "' is signed with key "
              + keyId
              + " of node '"
              + key.node()
              + "'");
    }
    if (key.revoked()) {
      return refused(
          NodeEventRefusal.REVOKED, "node '" + node + "' was revoked (key " + keyId + ")");
    }
    if (mac != null && key.macKey() != null && key.macKey().verifies(value, mac)) {
      return new Accepted(Proof.MAC);
    }
    if (signature == null) {
      return refused(
          NodeEventRefusal.BAD_MAC,
          "the value of node '"
              + node
              + "' does not match its MAC under key "
              + keyId
              + (key.macKey() == null ? " (the node agreed no MAC key)" : " (forged or altered)"));
    }
    String problem = signatureProblem(key, value, signature);
    return problem == null
        ? new Accepted(Proof.SIGNATURE)
        : refused(NodeEventRefusal.BAD_SIGNATURE, problem);
  }

  private static String signatureProblem(EnrolledKey key, byte[] value, String signature) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(signature);
    } catch (IllegalArgumentException e) {
      return "signature is not valid base64: " + e.getMessage();
    }
    // Base64 leaves unused bits in its last character: one signature must have one spelling.
    if (!Base64.getEncoder().encodeToString(bytes).equals(signature)) {
      return "signature is not canonical base64";
    }
    try {
      return key.publicKey().verifies(value == null ? new byte[0] : value, bytes)
          ? null
          : "the value of node '" + key.node() + "' was not signed by its key (forged or altered)";
    } catch (GeneralSecurityException e) {
      return "signature cannot be checked: " + e.getMessage();
    }
  }

  private static Refused refused(NodeEventRefusal cause, String detail) {
    return new Refused(cause, detail);
  }
}
