package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.audit.store.AuditTrail;
import io.fleetwave.controlplane.config.NodeIdentityConfig;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.facts.FactNotRecordedException;
import io.fleetwave.controlplane.security.CommandSigning;
import io.fleetwave.events.fact.NodeKeyEnrolled;
import io.fleetwave.events.fact.NodeReadmitted;
import io.fleetwave.events.fact.NodeRevoked;
import io.fleetwave.events.security.AgreementKey;
import io.fleetwave.events.security.EnrolledKey;
import io.fleetwave.events.security.NodeKeyId;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Enrolls node keys against a bootstrap credential (a one-time join token, or a Kubernetes
 * service-account token bound to the node), creates join tokens and revokes nodes. A join token is
 * consumed in the transaction that stores the key, so a refused key leaves it usable.
 *
 * <p>Each enrolment, revocation and re-admission is a fact on fleet.control-facts ({@link
 * NodeIdentityFacts}), appended and acknowledged inside the transaction, under the node's lock and
 * after every check, then applied to the tables before the transaction commits: the request
 * succeeds only once the log holds the fact, and the next signature check (the agent's first signed
 * event) finds the key in the table.
 */
@ApplicationScoped
public class NodeEnrolment {
  /** A Kubernetes node name (DNS subdomain): what a node event's subject may be. */
  private static final Pattern NODE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /** A join token's id, the part before the dot: what the audit log may name. */
  private static final Pattern JOIN_TOKEN_ID = Pattern.compile("([a-z0-9]{6})\\..*");

  private static final Logger LOG = Logger.getLogger(NodeEnrolment.class);

  private final Pool pool;
  private final ServiceAccountReview serviceAccounts;
  private final EnrolmentRateLimit limit;
  private final NodeIdentityConfig config;
  private final ControlFactLog facts;
  private final AuditTrail audit;
  private final NodeKafkaUsers kafkaUsers;
  private final CommandSigning commandSigning;
  private final Clock clock = Clock.systemUTC();

  public NodeEnrolment(
      Pool pool,
      ServiceAccountReview serviceAccounts,
      EnrolmentRateLimit limit,
      NodeIdentityConfig config,
      ControlFactLog facts,
      AuditTrail audit,
      NodeKafkaUsers kafkaUsers,
      CommandSigning commandSigning) {
    this.commandSigning = commandSigning;
    this.audit = audit;
    this.pool = pool;
    this.kafkaUsers = kafkaUsers;
    this.facts = facts;
    this.serviceAccounts = serviceAccounts;
    this.limit = limit;
    this.config = config;
  }

  /**
   * Enrolls the node's key if its credential allows it; every attempt is logged and audited (see
   * {@link EnrolmentAudit}), and bounded per source and per node ({@link EnrolmentRateLimit}); an
   * enrolment that succeeds gives its source's attempt back.
   *
   * @param source the caller's address
   * @throws EnrolmentThrottledException (failed Uni) when the source or the node made too many
   *     attempts (logged, not audited: an audit row per attempt is what a flood must not cost)
   * @throws EnrolmentRefusedException (failed Uni) when the credential does not allow it
   * @throws InvalidEnrolmentException (failed Uni) when the request is malformed
   */
  public Uni<Enrolled> enroll(String node, EnrolmentRequest request, String source) {
    try {
      limit.takeForSource(source);
      checkNodeName(node);
      limit.takeForNode(node);
    } catch (EnrolmentThrottledException e) {
      if (e.first()) {
        LOG.warnf(
            "enrolment of node '%s' from %s refused (429): %s (further refusals are not logged"
                + " until an attempt is allowed again)",
            node, source, e.getMessage());
      }
      return Uni.createFrom().failure(e);
    } catch (InvalidEnrolmentException e) {
      LOG.warnf("enrolment from %s refused (400): %s", source, e.getMessage());
      return Uni.createFrom().failure(e);
    }
    EnrolmentAudit.Attempt attempt =
        new EnrolmentAudit.Attempt(node, source, credentialOf(request), clock.instant());
    // The wait for the node's Kafka credential has a bound of its own, on top of the database's.
    Duration bound =
        kafkaUsers.enabled()
            ? config.timeout().plus(config.kafkaUsers().secretTimeout())
            : config.timeout();
    return attempt(attempt, request)
        .ifNoItem()
        .after(bound)
        .failWith(() -> new IllegalStateException("enrolment did not finish within the bound"))
        .onItem()
        .invoke(() -> limit.returnToSource(source))
        .onFailure()
        .call(e -> auditRefusal(attempt, e));
  }

  private Uni<Enrolled> attempt(EnrolmentAudit.Attempt attempt, EnrolmentRequest request) {
    String node = attempt.node();
    return Uni.createFrom()
        .deferred(
            () -> {
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
              Instant now = attempt.at();
              if (join) {
                String token = request.joinToken().strip();
                return claim(
                    attempt,
                    pem,
                    keyId,
                    tx ->
                        JoinTokens.check(tx, token, node, keyId, now)
                            .map(
                                usable ->
                                    new Credential(
                                        JoinTokens.credential(usable.id()),
                                        // A retry: the key is stored and the token used up.
                                        usable.retry() ? null : usable.id())));
              }
              // The TokenReview call is made before the transaction, which it would hold open.
              return serviceAccounts
                  .nodeOf(request.serviceAccountToken().strip(), node)
                  .chain(
                      credential ->
                          claim(
                              attempt,
                              pem,
                              keyId,
                              tx -> Uni.createFrom().item(new Credential(credential, null))));
            });
  }

  /**
   * Enrolls {@code pem} once the node is admitted and {@code check} accepts its bootstrap
   * credential: checked once before the node's Kafka credential is made (a wait no transaction
   * should hold open), and again, under the node's lock, in the transaction that stores the key.
   */
  private Uni<Enrolled> claim(
      EnrolmentAudit.Attempt attempt,
      String pem,
      String keyId,
      Function<SqlClient, Uni<Credential>> check) {
    String node = attempt.node();
    return Connections.withTransaction(pool, tx -> admitted(tx, node).chain(() -> check.apply(tx)))
        .chain(() -> kafkaUsers.provision(node))
        .chain(
            kafka ->
                Connections.withTransaction(
                    pool,
                    tx ->
                        admitted(tx, node)
                            .chain(() -> check.apply(tx))
                            .chain(
                                accepted ->
                                    store(
                                        tx,
                                        attempt,
                                        new Claim(
                                            pem,
                                            keyId,
                                            accepted.name(),
                                            accepted.joinToken(),
                                            kafka)))));
  }

  /**
   * An accepted bootstrap credential: its name for the audit log, and the join token to use up
   * (null for a service-account token, or a join token already used up by this key).
   */
  private record Credential(String name, String joinToken) {}

  /**
   * What an accepted credential enrolls: the key, the credential's name for the audit log, the join
   * token to use up (null for a service-account token) and the node's Kafka credential (empty when
   * the control plane makes none).
   */
  private record Claim(
      String pem,
      String keyId,
      String credential,
      String joinToken,
      Optional<KafkaCredential> kafka) {}

  /**
   * A refused or failed attempt's audit entry, in its own statement (the refusal rolled back
   * anything it had begun). If it cannot be written, that is logged and the caller still gets the
   * refusal: nothing was changed.
   */
  private Uni<Void> auditRefusal(EnrolmentAudit.Attempt attempt, Throwable failure) {
    int status =
        switch (failure) {
          case EnrolmentRefusedException refused -> 401;
          case InvalidEnrolmentException invalid -> 400;
          case FactNotRecordedException unrecorded -> 503;
          case KafkaCredentialUnavailableException unavailable -> 503;
          default -> 500;
        };
    return EnrolmentAudit.refused(audit, attempt, status, String.valueOf(failure.getMessage()))
        .ifNoItem()
        .after(config.timeout())
        .fail()
        .onFailure()
        .invoke(
            e ->
                LOG.errorf(
                    "audit entry of the refused enrolment of node '%s' not written: %s",
                    attempt.node(), e))
        .onFailure()
        .recoverWithNull();
  }

  /** The credential's kind and subject as the audit log names it: never the secret. */
  private static String credentialOf(EnrolmentRequest request) {
    if (request != null && present(request.joinToken())) {
      var id = JOIN_TOKEN_ID.matcher(request.joinToken().strip());
      return id.matches() ? JoinTokens.credential(id.group(1)) : "join token (malformed)";
    }
    if (request != null && present(request.serviceAccountToken())) {
      return "service-account token (not authenticated)";
    }
    return "no credential";
  }

  /**
   * Refuses a revoked node, whatever its credential: revocation applies to the node, not only to
   * the keys it had, until an admin re-admits it. Takes the node's lock for the transaction.
   */
  private static Uni<Void> admitted(SqlClient tx, String node) {
    return NodeKeyStore.lockNode(tx, node)
        .chain(() -> NodeKeyStore.revocation(tx, node))
        .map(
            revoked -> {
              if (revoked != null) {
                throw new EnrolmentRefusedException(
                    "node '"
                        + node
                        + "' was revoked at "
                        + revoked.revokedAt()
                        + " by "
                        + revoked.revokedBy()
                        + "; it enrolls again only after an admin re-admits it (POST"
                        + " /api/v1/nodes/"
                        + node
                        + "/enrolment/readmission)");
              }
              return null;
            });
  }

  /**
   * Stores the key and uses up the join token, if any (their fact appended first; a key already
   * this node's is left as it is, and its fact is appended only to use up a join token), and its
   * audit entry, in the same transaction.
   */
  private Uni<Enrolled> store(SqlClient tx, EnrolmentAudit.Attempt attempt, Claim claim) {
    String node = attempt.node();
    String keyId = claim.keyId();
    String joinToken = claim.joinToken();
    return NodeKeyStore.lockKey(tx, keyId)
        .chain(() -> NodeKeyStore.holder(tx, keyId))
        .chain(
            holder -> {
              if (holder != null) {
                String conflict = NodeKeyStore.conflict(holder, keyId, node);
                if (conflict != null) {
                  throw new EnrolmentRefusedException(conflict);
                }
                if (joinToken == null) {
                  return Uni.createFrom().voidItem();
                }
              }
              NodeKeyEnrolled enrolled =
                  new NodeKeyEnrolled(
                      keyId, claim.pem(), claim.credential(), attempt.at(), joinToken);
              return facts
                  .append(node, enrolled, attempt.at())
                  .chain(fact -> NodeIdentityFacts.apply(tx, fact));
            })
        .chain(() -> NodeKeyStore.validKeys(tx, node))
        .map(
            keys ->
                new Enrolled(
                    node,
                    keyId,
                    claim.credential(),
                    attempt.at(),
                    keys,
                    claim.kafka().orElse(null),
                    commandSigning.agreementKey().map(AgreementKey::publicKey).orElse(null)))
        .call(enrolled -> EnrolmentAudit.accepted(audit, tx, attempt, enrolled));
  }

  /**
   * A one-time join token for one node, valid for the lifetime (the configured default when null).
   * A token must name its node: one that enrolled any name would let its holder enroll a key for a
   * node that already has one (and sign that node's events), or claim a Kubernetes node's name
   * before its agent enrolls.
   */
  public Uni<JoinTokenCreated> createJoinToken(JoinTokenRequest request, String actor) {
    if (request == null || !present(request.node())) {
      throw new InvalidEnrolmentException(
          "node is missing: a join token enrolls the one node it names (e.g. {\"node\":"
              + " \"gpu-17\"}); create one per host");
    }
    String node = request.node().strip();
    checkNodeName(node);
    Duration lifetime =
        request.lifetimeSeconds() == null
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
    JoinTokens.Minted minted = JoinTokens.mint(node, now, now.plus(lifetime), actor);
    JoinTokens.Created c = minted.created();
    return Connections.withTransaction(
            pool,
            tx ->
                facts
                    .append(node, minted.fact(), now)
                    .chain(fact -> NodeIdentityFacts.apply(tx, fact)))
        .replaceWith(new JoinTokenCreated(c.token(), c.id(), c.node(), c.expiresAt()));
  }

  /**
   * Revokes the node: every key it enrolled, and every later enrolment for it, by any credential,
   * until an admin re-admits it. From the next batch on nothing it signed is accepted.
   */
  public Uni<Revoked> revoke(String node, String actor) {
    checkNodeName(node);
    Instant at = clock.instant();
    return withNodeLocked(
            node,
            tx ->
                facts
                    .append(node, new NodeRevoked(at, actor), at)
                    .chain(fact -> NodeIdentityFacts.revoked(tx, fact, new NodeRevoked(at, actor))))
        // After the commit: the node is revoked whatever happens next; a user that could not be
        // deleted fails the call (503), and revoking again deletes it.
        .chain(count -> kafkaUsers.delete(node).map(deleted -> new Revoked(node, count, deleted)));
  }

  /**
   * Admits a revoked node again, so that it may enroll a new key with a new credential.
   *
   * @throws NodeNotRevokedException (failed Uni) when the node is not revoked
   */
  public Uni<Readmitted> readmit(String node) {
    checkNodeName(node);
    Instant at = clock.instant();
    return withNodeLocked(
        node,
        tx ->
            NodeKeyStore.revocation(tx, node)
                .chain(
                    ended -> {
                      if (ended == null) {
                        throw new NodeNotRevokedException(node);
                      }
                      return facts
                          .append(
                              node, new NodeReadmitted(ended.revokedAt(), ended.revokedBy()), at)
                          .chain(fact -> NodeIdentityFacts.readmitted(tx, fact))
                          .replaceWith(new Readmitted(node, ended.revokedAt(), ended.revokedBy()));
                    }));
  }

  /**
   * Runs {@code change} in a transaction that first takes the node's identity lock ({@link
   * NodeKeyStore#lockNode}), as every change to whether a node may enroll does.
   */
  private <T> Uni<T> withNodeLocked(String node, Function<SqlClient, Uni<T>> change) {
    return Connections.withTransaction(
        pool, tx -> NodeKeyStore.lockNode(tx, node).chain(() -> change.apply(tx)));
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
