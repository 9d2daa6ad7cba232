package io.fleetwave.events.security;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.KDF;
import javax.crypto.spec.HKDFParameterSpec;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/**
 * An X25519 key with which a node and the control plane agree on the key of the node's event MACs
 * ({@link NodeEventMacKey}), so that the control plane checks a record with an HMAC (1-2 us,
 * NodeEventAuthenticityBench) instead of an Ed25519 signature (about 67 us, close to half of what
 * the projection spent). Neither side holds a second secret:
 *
 * <ul>
 *   <li>a node agrees with its enrolled Ed25519 key itself, in its X25519 form (the same scalar;
 *       the public key's Montgomery form, RFC 7748 section 4.1, as age does for ssh-ed25519
 *       recipients). So the control plane knows every node's agreement key from the key it
 *       enrolled: nothing new is enrolled or stored, and only the holder of the node's private key
 *       can compute the node's side;
 *   <li>the control plane agrees with a key derived from its command-signing key by HKDF under a
 *       label of its own (every replica holds that key; rotating it rotates this one) and tells
 *       each node its public half when the node enrolls.
 * </ul>
 *
 * The node's key only ever enters the agreement, whose output is only ever hashed into the MAC key;
 * a MAC key needs one of the two private keys, neither ever in the database. Thread-safe.
 */
public final class AgreementKey {
  /** Bytes of an X25519 public key. */
  static final int PUBLIC_BYTES = X25519PublicKeyParameters.KEY_SIZE;

  /** The field prime of Curve25519, 2^255 - 19. */
  private static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));

  private static final byte[] CONTROL_PLANE_LABEL =
      "fleetwave control-plane agreement key v1".getBytes(StandardCharsets.US_ASCII);
  private static final String MAC_KEY_LABEL = "fleetwave node-event mac key v1";

  private final X25519PrivateKeyParameters key;
  private final String publicKey;

  private AgreementKey(X25519PrivateKeyParameters key) {
    this.key = key;
    this.publicKey = encode(key.generatePublicKey().getEncoded());
  }

  /**
   * A node's agreement key: its Ed25519 signing key's secret scalar (the first half of the SHA-512
   * of the seed, RFC 8032 section 5.1.5), which X25519 clamps as Ed25519 does.
   */
  static AgreementKey ofNodeKey(Ed25519PrivateKeyParameters signingKey) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-512").digest(signingKey.getEncoded());
      return new AgreementKey(new X25519PrivateKeyParameters(Arrays.copyOf(hash, 32)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK offers no SHA-512: " + e.getMessage(), e);
    }
  }

  /** The control plane's agreement key, derived from its command-signing key. */
  static AgreementKey ofControlPlaneKey(Ed25519PrivateKeyParameters commandKey) {
    return new AgreementKey(
        new X25519PrivateKeyParameters(hkdf(commandKey.getEncoded(), CONTROL_PLANE_LABEL)));
  }

  /** The public half, base64 of its 32 bytes: what the other side agrees with. */
  public String publicKey() {
    return publicKey;
  }

  /**
   * On the node: the key of its events' MACs for the control plane whose agreement key is {@code
   * controlPlaneKey}.
   *
   * @param nodeKeyId the id of the node's Ed25519 key, this agreement key's
   * @throws IllegalArgumentException when {@code controlPlaneKey} is not a usable X25519 public key
   */
  NodeEventMacKey macKeyWithControlPlane(String nodeKeyId, String controlPlaneKey) {
    return macKey(nodeKeyId, publicKey, controlPlaneKey, publicKeyBytes(controlPlaneKey));
  }

  /**
   * On the control plane: the key of the MACs of an enrolled node key, agreed with the key's
   * Montgomery form.
   *
   * @throws IllegalArgumentException when the key has no usable X25519 form (a point of small
   *     order: no key a node generates)
   */
  public NodeEventMacKey macKeyWithNode(NodePublicKey node) {
    byte[] nodeKey = montgomeryForm(node.encoded());
    return macKey(node.id(), encode(nodeKey), publicKey, nodeKey);
  }

  /**
   * Both ends derive the MAC key from the shared secret under a label naming the node key and both
   * public keys, so a key agreed for one node key or one control plane is never another's.
   */
  private NodeEventMacKey macKey(
      String nodeKeyId, String nodePublic, String controlPlanePublic, byte[] peer) {
    byte[] shared = new byte[X25519PrivateKeyParameters.SECRET_SIZE];
    try {
      key.generateSecret(new X25519PublicKeyParameters(peer), shared, 0);
    } catch (IllegalStateException e) {
      // Bouncy Castle refuses a point of small order, whose shared secret is all zeros.
      throw new IllegalArgumentException(
          "agreement key is not usable (a point of small order): " + encode(peer), e);
    }
    String info =
        MAC_KEY_LABEL + "\n" + nodeKeyId + "\n" + nodePublic + "\n" + controlPlanePublic + "\n";
    return new NodeEventMacKey(hkdf(shared, info.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The X25519 public key of an Ed25519 public key (its 32-byte encoding: y little-endian, the top
   * bit x's sign): u = (1 + y) / (1 - y) mod p, RFC 7748 section 4.1.
   */
  static byte[] montgomeryForm(byte[] edwards) {
    byte[] bigEndian = new byte[edwards.length];
    for (int i = 0; i < edwards.length; i++) {
      bigEndian[i] = edwards[edwards.length - 1 - i];
    }
    bigEndian[0] &= 0x7f;
    BigInteger y = new BigInteger(1, bigEndian);
    BigInteger denominator = BigInteger.ONE.subtract(y).mod(P);
    if (y.compareTo(P) >= 0 || denominator.signum() == 0) {
      throw new IllegalArgumentException("node key has no X25519 form (not a curve point's y)");
    }
    BigInteger u = BigInteger.ONE.add(y).multiply(denominator.modInverse(P)).mod(P);
    byte[] out = new byte[PUBLIC_BYTES];
    byte[] magnitude = u.toByteArray();
    for (int i = 0; i < PUBLIC_BYTES && i < magnitude.length; i++) {
      out[i] = magnitude[magnitude.length - 1 - i];
    }
    return out;
  }

  /**
   * The 32 bytes of an agreement public key given as base64.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  static byte[] publicKeyBytes(String base64) {
    if (base64 == null || base64.isBlank()) {
      throw new IllegalArgumentException("agreement key is empty");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("agreement key is not valid base64: " + e.getMessage(), e);
    }
    if (bytes.length != PUBLIC_BYTES) {
      throw new IllegalArgumentException(
          "agreement key must be " + PUBLIC_BYTES + " bytes of X25519, got " + bytes.length);
    }
    return bytes;
  }

  private static String encode(byte[] key) {
    return Base64.getEncoder().encodeToString(key);
  }

  private static byte[] hkdf(byte[] secret, byte[] info) {
    try {
      return KDF.getInstance("HKDF-SHA256")
          .deriveData(HKDFParameterSpec.ofExtract().addIKM(secret).thenExpand(info, 32));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK offers no HKDF-SHA256: " + e.getMessage(), e);
    }
  }
}
