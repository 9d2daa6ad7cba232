package io.fleetwave.events.security;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.Base64;

/**
 * A public key's id (a node's key, or a control-plane signing key's `kid`): the unpadded base64url
 * SHA-256 of its X.509 encoding. Derived from the key itself, so the node and the control plane
 * compute the same id without agreeing on anything, and an id names one key only.
 */
public final class NodeKeyId {
  private NodeKeyId() {}

  public static String of(PublicKey key) {
    return "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(key));
  }

  /** The id of an X.509 public key, PEM or base64; refused with the reason if it is not one. */
  public static String ofPem(String pem) {
    return of(EnrolledKey.parsePublicKey(pem));
  }

  private static byte[] sha256(PublicKey key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getEncoded());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK offers no SHA-256", e);
    }
  }
}
