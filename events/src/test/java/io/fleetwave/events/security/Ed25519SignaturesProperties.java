package io.fleetwave.events.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.util.PrivateKeyInfoFactory;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;

/**
 * Bouncy Castle's Ed25519 and the JDK's are interchangeable: the same signature bytes for the same
 * key and message, and the same verdict on any signature, altered or not. Agents and control planes
 * that sign with one and check with the other (an older release, a rolling upgrade) must agree.
 */
class Ed25519SignaturesProperties {
  private static final String JDK = "Ed25519";

  @Property(tries = 200)
  void signsTheSameBytesAsTheJdk(
      @ForAll("seeds") byte[] seed, @ForAll @Size(max = 2_000) byte[] message) throws Exception {
    KeyPair pair = jdkPair(seed);

    byte[] ours = Ed25519Signatures.sign(Ed25519Signatures.signingKey(pair.getPrivate()), message);

    assertThat(ours).isEqualTo(jdkSign(pair, message));
    assertThat(Ed25519Signatures.verify(pair.getPublic(), message, ours)).isTrue();
  }

  /** Any bit of the message or the signature flipped: both refuse it. */
  @Property(tries = 300)
  void judgesEveryAlteredSignatureAsTheJdkDoes(
      @ForAll("seeds") byte[] seed,
      @ForAll @Size(min = 1, max = 500) byte[] message,
      @ForAll boolean alterSignature,
      @ForAll @IntRange(min = 0, max = 10_000) int position,
      @ForAll @IntRange(min = 0, max = 7) int bit)
      throws Exception {
    KeyPair pair = jdkPair(seed);
    byte[] signature = jdkSign(pair, message);
    byte[] target = alterSignature ? signature : message;
    target[position % target.length] ^= (byte) (1 << bit);

    boolean ours = Ed25519Signatures.verify(pair.getPublic(), message, signature);

    assertThat(ours).isEqualTo(jdkVerify(pair, message, signature)).isFalse();
  }

  @Property(tries = 50)
  void derivesThePublicKeyTheJdkPairHas(@ForAll("seeds") byte[] seed) throws Exception {
    KeyPair pair = jdkPair(seed);

    assertThat(Ed25519Keys.publicKeyOf(pair.getPrivate()).getEncoded())
        .isEqualTo(pair.getPublic().getEncoded());
  }

  @Property(tries = 20)
  void refusesASignatureOfTheWrongLengthInTheJdksWords(
      @ForAll("seeds") byte[] seed, @ForAll @IntRange(min = 0, max = 130) int length)
      throws Exception {
    net.jqwik.api.Assume.that(length != Ed25519Signatures.SIGNATURE_BYTES);
    KeyPair pair = jdkPair(seed);

    assertThatThrownBy(
            () -> Ed25519Signatures.verify(pair.getPublic(), new byte[1], new byte[length]))
        .isInstanceOf(SignatureException.class)
        .hasMessage("signature length invalid");
  }

  @Provide
  Arbitrary<byte[]> seeds() {
    return Arbitraries.bytes().array(byte[].class).ofSize(Ed25519PrivateKeyParameters.KEY_SIZE);
  }

  /** A JDK key pair from a 32-byte private key, through the keys' standard encodings. */
  private static KeyPair jdkPair(byte[] seed) throws Exception {
    Ed25519PrivateKeyParameters key = new Ed25519PrivateKeyParameters(seed, 0);
    KeyFactory keys = KeyFactory.getInstance(JDK);
    return new KeyPair(
        keys.generatePublic(
            new X509EncodedKeySpec(
                SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(key.generatePublicKey())
                    .getEncoded())),
        keys.generatePrivate(
            new PKCS8EncodedKeySpec(PrivateKeyInfoFactory.createPrivateKeyInfo(key).getEncoded())));
  }

  private static byte[] jdkSign(KeyPair pair, byte[] message) throws GeneralSecurityException {
    Signature signature = Signature.getInstance(JDK);
    signature.initSign(pair.getPrivate());
    signature.update(message);
    return signature.sign();
  }

  /**
   * The JDK's verdict: accepted or not (it throws, rather than answers false, for an R off the
   * curve).
   */
  private static boolean jdkVerify(KeyPair pair, byte[] message, byte[] bytes)
      throws GeneralSecurityException {
    Signature signature = Signature.getInstance(JDK);
    signature.initVerify(pair.getPublic());
    signature.update(message);
    try {
      return signature.verify(bytes);
    } catch (SignatureException refused) {
      return false;
    }
  }
}
