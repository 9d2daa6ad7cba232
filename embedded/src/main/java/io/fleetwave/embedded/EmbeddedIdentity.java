package io.fleetwave.embedded;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.jwt.NumericDate;
import org.jose4j.lang.JoseException;

/**
 * A stand-in identity provider for the demo and the tests, where no OIDC provider runs: an RSA key
 * pair made at start, tokens signed with its private half, and the settings that make the control
 * plane's OIDC extension verify them with the public half ({@code quarkus.oidc.public-key}) and
 * accept only this issuer. The control plane checks these tokens exactly as it checks a real
 * provider's: the same extension, the same role checks.
 */
public final class EmbeddedIdentity {
  /** The issuer (the {@code iss} claim) of every token this identity signs. */
  public static final String ISSUER = "https://fleetwave.invalid/embedded-identity";

  /**
   * The client Fleetwave is registered as (the control plane's default {@code
   * quarkus.oidc.client-id}): its tokens name it as their audience and carry its roles as this
   * client's roles, as Keycloak issues them.
   */
  public static final String CLIENT_ID = "fleetwave";

  private final KeyPair keys;
  private final String issuer;

  private EmbeddedIdentity(KeyPair keys, String issuer) {
    this.keys = keys;
    this.issuer = issuer;
  }

  /** A fresh key pair, issuing as {@link #ISSUER}. */
  public static EmbeddedIdentity generate() {
    return generate(ISSUER);
  }

  /** A fresh key pair with another issuer (a test's "token from another issuer"). */
  public static EmbeddedIdentity generate(String issuer) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return new EmbeddedIdentity(generator.generateKeyPair(), issuer);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK cannot generate RSA keys", e);
    }
  }

  /**
   * An identity over keys made elsewhere, issuing as {@code issuer}: for tests that use one key
   * pair for many applications.
   */
  public static EmbeddedIdentity of(KeyPair keys, String issuer) {
    return new EmbeddedIdentity(keys, issuer);
  }

  /** Its key pair, private half included. */
  public KeyPair keys() {
    return keys;
  }

  /** The same keys issuing as {@code otherIssuer}: its tokens verify but name another issuer. */
  public EmbeddedIdentity withIssuer(String otherIssuer) {
    return new EmbeddedIdentity(keys, otherIssuer);
  }

  /**
   * The public key as base64 DER (X.509 SubjectPublicKeyInfo), as quarkus.oidc.public-key takes it.
   */
  public String publicKey() {
    return Base64.getEncoder().encodeToString(keys.getPublic().getEncoded());
  }

  public String issuer() {
    return issuer;
  }

  /** The control plane's settings that make it accept this identity's tokens and no others. */
  public Map<String, String> quarkusProperties() {
    return Map.of("quarkus.oidc.public-key", publicKey(), "quarkus.oidc.token.issuer", issuer);
  }

  /**
   * The public key as a JSON Web Key Set (key id {@code embedded}), as an OIDC provider serves it
   * at its {@code jwks_uri}: for a test that stands in for a provider.
   */
  public String jwks() {
    RsaJsonWebKey key = new RsaJsonWebKey((RSAPublicKey) keys.getPublic());
    key.setKeyId("embedded");
    key.setUse("sig");
    key.setAlgorithm(AlgorithmIdentifiers.RSA_USING_SHA256);
    return new JsonWebKeySet(key).toJson();
  }

  /**
   * A signed token for {@code subject} with Fleetwave's {@code roles}: issued for {@link
   * #CLIENT_ID} (the {@code aud} claim), the roles as that client's roles ({@code
   * resource_access.fleetwave.roles}).
   */
  public String token(String subject, Duration lifetime, String... roles) {
    return token(subject, Instant.now().plus(lifetime), roles);
  }

  /** As above, expiring at {@code expiry} (in the past: an expired token, for tests). */
  public String token(String subject, Instant expiry, String... roles) {
    return token(
        subject,
        expiry,
        Map.of("aud", CLIENT_ID, "resource_access", clientRoles(CLIENT_ID, roles)));
  }

  /**
   * A signed token for {@code subject} with exactly the given {@code claims} besides issuer,
   * subject and times: for tests of tokens issued for another audience or carrying roles elsewhere
   * (realm roles, another client's roles).
   */
  public String token(String subject, Duration lifetime, Map<String, Object> claims) {
    return token(subject, Instant.now().plus(lifetime), claims);
  }

  private String token(String subject, Instant expiry, Map<String, Object> extra) {
    Instant issuedAt = expiry.isBefore(Instant.now()) ? expiry.minusSeconds(60) : Instant.now();
    JwtClaims claims = new JwtClaims();
    claims.setIssuer(issuer);
    claims.setSubject(subject);
    claims.setClaim("upn", subject);
    claims.setIssuedAt(NumericDate.fromSeconds(issuedAt.getEpochSecond()));
    claims.setExpirationTime(NumericDate.fromSeconds(expiry.getEpochSecond()));
    extra.forEach(claims::setClaim);
    JsonWebSignature signature = new JsonWebSignature();
    signature.setPayload(claims.toJson());
    signature.setKey(keys.getPrivate());
    signature.setKeyIdHeaderValue("embedded");
    signature.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
    try {
      return signature.getCompactSerialization();
    } catch (JoseException e) {
      throw new IllegalStateException("cannot sign a token for " + subject, e);
    }
  }

  /** Keycloak's {@code resource_access} claim: {@code client}'s roles. */
  public static Map<String, Object> clientRoles(String client, String... roles) {
    return Map.of(client, Map.of("roles", List.of(roles)));
  }
}
