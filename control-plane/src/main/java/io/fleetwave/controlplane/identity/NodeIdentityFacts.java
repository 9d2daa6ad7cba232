package io.fleetwave.controlplane.identity;

import io.fleetwave.controlplane.facts.AppliedFacts;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.fact.AuditRecorded;
import io.fleetwave.events.fact.CommandGenerationUsed;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.fact.JoinTokenCreated;
import io.fleetwave.events.fact.MigConfigsImported;
import io.fleetwave.events.fact.NodeKeyEnrolled;
import io.fleetwave.events.fact.NodeReadmitted;
import io.fleetwave.events.fact.NodeRevoked;
import io.fleetwave.events.fact.OperatorRequestHandled;
import io.fleetwave.events.fact.OperatorRequested;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.function.Supplier;

/**
 * Applies the node-identity facts of fleet.control-facts to node_keys, revoked_nodes and
 * join_tokens, each once: the enrolment request that appended the fact, a replica following the
 * topic and a rebuild all come here. Takes the node's lock, so it waits for a request of the same
 * node in flight.
 */
public final class NodeIdentityFacts {
  private NodeIdentityFacts() {}

  /** Applies the fact in the caller's transaction unless it was applied before. */
  public static Uni<Void> apply(SqlClient tx, Envelope<ControlFact> fact) {
    return switch (fact.data()) {
      case NodeKeyEnrolled enrolled -> enrolled(tx, fact, enrolled);
      case NodeRevoked revoked -> revoked(tx, fact, revoked).replaceWithVoid();
      case NodeReadmitted readmitted -> readmitted(tx, fact);
      case JoinTokenCreated created ->
          once(tx, fact, () -> JoinTokens.insert(tx, fact.subject(), created).replaceWith(0))
              .replaceWithVoid();
      case MigConfigsImported imported -> notOurs(fact);
      case AuditRecorded recorded -> notOurs(fact);
      case DesiredSpecSet set -> notOurs(fact);
      case CommandGenerationUsed used -> notOurs(fact);
      case OperatorRequested requested -> notOurs(fact);
      case OperatorRequestHandled handled -> notOurs(fact);
    };
  }

  private static Uni<Void> notOurs(Envelope<ControlFact> fact) {
    throw new IllegalArgumentException(fact.type() + " is not a node-identity fact");
  }

  static Uni<Void> enrolled(SqlClient tx, Envelope<ControlFact> fact, NodeKeyEnrolled enrolled) {
    String node = fact.subject();
    return once(
            tx,
            fact,
            () ->
                NodeKeyStore.insert(
                        tx,
                        enrolled.keyId(),
                        node,
                        enrolled.publicKey(),
                        enrolled.credential(),
                        enrolled.enrolledAt())
                    .chain(() -> usedUp(tx, enrolled, node))
                    .replaceWith(0))
        .replaceWithVoid();
  }

  /** The join token the enrolment used, marked used (if it used one). */
  private static Uni<Void> usedUp(SqlClient tx, NodeKeyEnrolled enrolled, String node) {
    return enrolled.joinToken() == null
        ? Uni.createFrom().voidItem()
        : JoinTokens.use(tx, enrolled.joinToken(), node, enrolled.enrolledAt());
  }

  /** The number of keys the revocation revoked (0 when it had been applied). */
  static Uni<Integer> revoked(SqlClient tx, Envelope<ControlFact> fact, NodeRevoked revoked) {
    return once(
        tx,
        fact,
        () -> NodeKeyStore.revoke(tx, fact.subject(), revoked.revokedBy(), revoked.revokedAt()));
  }

  static Uni<Void> readmitted(SqlClient tx, Envelope<ControlFact> fact) {
    return once(tx, fact, () -> NodeKeyStore.readmit(tx, fact.subject()).replaceWith(0))
        .replaceWithVoid();
  }

  private static Uni<Integer> once(
      SqlClient tx, Envelope<ControlFact> fact, Supplier<Uni<Integer>> change) {
    return NodeKeyStore.lockNode(tx, fact.subject())
        .chain(() -> AppliedFacts.first(tx, fact.id()))
        .chain(first -> first ? change.get() : Uni.createFrom().item(0));
  }
}
