package io.fleetwave.events.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The key of one node key's event MACs, agreed between the node and the control plane ({@link
 * AgreementKey}): an HMAC-SHA256 over the exact value bytes, carried base64 in the {@link
 * NodeEventSigner#MAC_HEADER} header beside the signature. Thread-safe: each MAC uses its own
 * {@link Mac}.
 */
public final class NodeEventMacKey {
  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  NodeEventMacKey(byte[] key) {
    this.key = new SecretKeySpec(key, ALGORITHM);
  }

  /** The base64 MAC of one record value. */
  public String mac(byte[] value) {
    return Base64.getEncoder().encodeToString(compute(value));
  }

  /**
   * Whether {@code mac} is this key's MAC of {@code value}: compared in constant time, and only in
   * its one canonical spelling.
   */
  public boolean verifies(byte[] value, String mac) {
    if (mac == null) {
      return false;
    }
    byte[] given;
    try {
      given = Base64.getDecoder().decode(mac);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return Base64.getEncoder().encodeToString(given).equals(mac)
        && MessageDigest.isEqual(compute(value), given);
  }

  private byte[] compute(byte[] value) {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac.doFinal(value == null ? new byte[0] : value);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK offers no HMAC-SHA256: " + e.getMessage(), e);
    }
  }
}
