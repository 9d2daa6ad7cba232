package io.fleetwave.events.security;

import java.security.PublicKey;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The control plane's public keys an agent accepts, each under its key id (kid). During a key
 * rotation an agent trusts the old and the new key; once the old one is retired (removed here), a
 * record it signed is refused. Immutable.
 */
public final class TrustedKeys {
  private final Map<String, PublicKey> byKid;

  private TrustedKeys(Map<String, PublicKey> byKid) {
    this.byKid = Map.copyOf(byKid);
  }

  /**
   * From configuration: X.509 (SubjectPublicKeyInfo) Ed25519 public keys, each PEM or bare base64.
   *
   * @throws IllegalArgumentException naming the key (by position) that cannot be read, or when none
   *     is given
   */
  public static TrustedKeys of(Collection<String> pems) {
    if (pems.isEmpty()) {
      throw new IllegalArgumentException("no command verification key given");
    }
    Map<String, PublicKey> keys = new LinkedHashMap<>();
    int position = 0;
    for (String pem : pems) {
      position++;
      PublicKey key;
      try {
        key = Ed25519Keys.publicKey(pem);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "key " + position + " of " + pems.size() + ": " + e.getMessage(), e);
      }
      keys.put(Ed25519Keys.kid(key), key);
    }
    return new TrustedKeys(keys);
  }

  /**
   * The key id of an Ed25519 public key (PEM or base64 of its X.509 DER): {@code sha256:} and the
   * unpadded base64url SHA-256 of the DER.
   */
  public static String kidOf(String pem) {
    return Ed25519Keys.kid(Ed25519Keys.publicKey(pem));
  }

  /** The ids of the keys trusted, for messages and logs. */
  public Set<String> kids() {
    return new java.util.TreeSet<>(byKid.keySet());
  }

  Optional<PublicKey> key(String kid) {
    return Optional.ofNullable(byKid.get(kid));
  }

  @Override
  public String toString() {
    return "TrustedKeys" + kids();
  }
}
