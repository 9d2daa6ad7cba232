package io.fleetwave.events.fact;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import java.time.Instant;

/**
 * The subject node enrolled a key: from now on the events it signs with it are its own.
 *
 * @param keyId {@code sha256:<base64url of the X.509 encoding>}
 * @param publicKey the key as X.509 PEM
 * @param credential how it enrolled: a join token's id or a service account, never the secret
 * @param joinToken the id of the join token it used up, or null (a service-account token): an
 *     enrolment with a join token is recorded even when the key was enrolled before, as the token
 *     is used up either way
 */
public record NodeKeyEnrolled(
    String keyId, String publicKey, String credential, Instant enrolledAt, String joinToken)
    implements ControlFact {
  public NodeKeyEnrolled {
    notBlank(keyId, "keyId");
    notBlank(publicKey, "publicKey");
    notBlank(credential, "credential");
    notNull(enrolledAt, "enrolledAt");
  }
}
