package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.config.NodeIdentityConfig;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeKeyId;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Enrolls node keys against a bootstrap credential (a one-time join token, or a Kubernetes
 * service-account token bound to the node), creates join tokens and revokes nodes. A join token is
 * consumed in the transaction that stores the key, so a refused key leaves it usable.
 */
@ApplicationScoped
public class NodeEnrolment {
  /** A Kubernetes node name (DNS subdomain): what a node event's subject may be. */
  private static final Pattern NODE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private final Pool pool;
  private final ServiceAccountReview serviceAccounts;
  private final NodeIdentityConfig config;
  private final Clock clock = Clock.systemUTC();

  public NodeEnrolment(Pool pool, ServiceAccountReview serviceAccounts, NodeIdentityConfig config) {
    this.pool = pool;
    this.serviceAccounts = serviceAccounts;
    this.config = config;
  }

  /**
   * @throws EnrolmentRefusedException (failed Uni) when the credential does not allow it
   * @throws InvalidEnrolmentException (failed Uni) when the request is malformed
   */
  public Uni<Enrolled> enroll(String node, EnrolmentRequest request) {
    return Uni.createFrom()
        .deferred(
            () -> {
              checkNodeName(node);
              boolean join = present(request == null ? null : request.joinToken());
              boolean account = present(request == null ? null : request.serviceAccountToken());
              if (!join && !account) {
                throw new EnrolmentRefusedException(
                    "enrolment needs a bootstrap credential: a join token (joinToken) or the"
                        + " agent's Kubernetes service-account token (serviceAccountToken)");
              }
              if (join && account) {
                throw new InvalidEnrolmentException(
                    "give one bootstrap credential, not both joinToken and serviceAccountToken");
              }
              String pem = request.publicKey();
              if (!present(pem)) {
                throw new InvalidEnrolmentException("publicKey (the node's X.509 PEM) is missing");
              }
              String keyId;
              try {
                keyId = NodeKeyId.of(EnrolledKey.parsePublicKey(pem));
              } catch (IllegalArgumentException e) {
                throw new InvalidEnrolmentException(e.getMessage());
              }
              Instant now = clock.instant();
              return join
                  ? enrollWithJoinToken(node, request.joinToken().strip(), pem, keyId, now)
                  : serviceAccounts
                      .nodeOf(request.serviceAccountToken().strip(), node)
                      .chain(credential -> store(pool, node, pem, keyId, credential, now));
            })
        .ifNoItem()
        .after(config.timeout())
        .failWith(() -> new IllegalStateException("enrolment did not finish within the bound"));
  }

  private Uni<Enrolled> enrollWithJoinToken(
      String node, String token, String pem, String keyId, Instant now) {
    return pool.withTransaction(
        tx ->
            JoinTokens.consume(tx, token, node, now)
                .chain(credential -> store(tx, node, pem, keyId, credential, now)));
  }

  private static Uni<Enrolled> store(
      io.vertx.mutiny.sqlclient.SqlClient sql,
      String node,
      String pem,
      String keyId,
      String credential,
      Instant now) {
    return NodeKeyStore.enroll(sql, keyId, node, pem, credential, now)
        .map(
            conflict -> {
              if (conflict != null) {
                throw new EnrolmentRefusedException(conflict);
              }
              return new Enrolled(node, keyId, credential, now);
            });
  }

  /** A one-time join token, valid for the lifetime (the configured default when null). */
  public Uni<JoinTokenCreated> createJoinToken(JoinTokenRequest request, String actor) {
    String node = request == null || !present(request.node()) ? null : request.node().strip();
    if (node != null) {
      checkNodeName(node);
    }
    Duration lifetime =
        request == null || request.lifetimeSeconds() == null
            ? config.joinTokenLifetime()
            : Duration.ofSeconds(request.lifetimeSeconds());
    if (lifetime.isNegative()
        || lifetime.isZero()
        || lifetime.compareTo(config.joinTokenMaxLifetime()) > 0) {
      throw new InvalidEnrolmentException(
          "lifetimeSeconds must be from 1 to "
              + config.joinTokenMaxLifetime().toSeconds()
              + ", got "
              + lifetime.toSeconds());
    }
    Instant now = clock.instant();
    return JoinTokens.create(pool, node, now, now.plus(lifetime), actor)
        .map(c -> new JoinTokenCreated(c.token(), c.id(), c.node(), c.expiresAt()));
  }

  /** Revokes every key of the node: from the next batch on, nothing it signed is accepted. */
  public Uni<Revoked> revoke(String node, String actor) {
    return NodeKeyStore.revoke(pool, node, actor, clock.instant())
        .map(count -> new Revoked(node, count));
  }

  private static void checkNodeName(String node) {
    if (node == null || node.length() > 253 || !NODE_NAME.matcher(node).matches()) {
      throw new InvalidEnrolmentException(
          "node name must be a Kubernetes node name (lower-case letters, digits, '-' and '.', at"
              + " most 253 characters)");
    }
  }

  private static boolean present(String text) {
    return text != null && !text.isBlank();
  }
}
