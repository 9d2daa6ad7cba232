package io.fleetwave.controlplane.projection;

import io.fleetwave.controlplane.audit.store.AuditFacts;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.identity.NodeIdentityFacts;
import io.fleetwave.controlplane.mig.store.MigConfigStore;
import io.fleetwave.controlplane.rollout.store.RequestFacts;
import io.fleetwave.controlplane.spec.store.SpecFacts;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.EventCodec;
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
import io.fleetwave.events.payload.FleetEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Applies a record of fleet.control-facts to the tables that project it, in a transaction of its
 * own, once (by envelope id): the follower of every replica and the rebuild both come here.
 */
@ApplicationScoped
public class ControlFacts {
  /**
   * The tables that hold facts, in the order a scratch copy creates them, each with the rows a
   * rebuild compares: all of them, but audit_log without its id (PostgreSQL's numbering, in the
   * order the rows were written, which a rebuild's replay need not repeat).
   */
  static final Map<String, String> TABLES =
      orderedMap(
          "node_keys", "*",
          "revoked_nodes", "*",
          "join_tokens", "*",
          "mig_configs", "*",
          "desired_specs", "*",
          "desired_spec_history", "*",
          "command_generations", "*",
          "audit_log", "at, actor, action, target, status, outcome",
          "rollout_requests", "*",
          "applied_facts", "*");

  private final Pool pool;
  private final MigConfigStore migConfigs;

  public ControlFacts(Pool pool, MigConfigStore migConfigs) {
    this.pool = pool;
    this.migConfigs = migConfigs;
  }

  /**
   * Applies the fact into the tables of {@code schema} ({@code public} for the live ones): the
   * transaction's search path names it, so each area's own SQL serves both.
   */
  Uni<Void> apply(Envelope<ControlFact> fact, String schema) {
    return Connections.withTransaction(
        pool,
        tx ->
            tx.query("SET LOCAL search_path TO " + new ProjectionTables(schema).schema())
                .execute()
                .chain(() -> dispatch(tx, fact)));
  }

  /** Listed, not defaulted, so a new fact fails to compile until it is applied somewhere. */
  private Uni<Void> dispatch(SqlClient tx, Envelope<ControlFact> fact) {
    return switch (fact.data()) {
      case NodeKeyEnrolled enrolled -> NodeIdentityFacts.apply(tx, fact);
      case NodeRevoked revoked -> NodeIdentityFacts.apply(tx, fact);
      case NodeReadmitted readmitted -> NodeIdentityFacts.apply(tx, fact);
      case JoinTokenCreated created -> NodeIdentityFacts.apply(tx, fact);
      case MigConfigsImported imported -> migConfigs.apply(tx, fact, imported);
      case AuditRecorded recorded -> AuditFacts.apply(tx, fact, recorded);
      case DesiredSpecSet set -> SpecFacts.specsSet(tx, List.of(fact));
      case CommandGenerationUsed used -> SpecFacts.commandGenerationUsed(tx, fact, used);
      case OperatorRequested requested -> RequestFacts.requested(tx, fact, requested);
      case OperatorRequestHandled handled -> RequestFacts.handled(tx, fact, handled);
    };
  }

  private static Map<String, String> orderedMap(String... tablesAndColumns) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < tablesAndColumns.length; i += 2) {
      map.put(tablesAndColumns[i], tablesAndColumns[i + 1]);
    }
    return Collections.unmodifiableMap(map);
  }

  /**
   * The fact a record holds.
   *
   * @throws EventRejectedException when it holds none (not decodable, or another kind of event)
   */
  @SuppressWarnings("unchecked")
  static Envelope<ControlFact> decode(byte[] value) throws EventRejectedException {
    Envelope<FleetEvent> envelope = EventCodec.decode(value);
    if (!(envelope.data() instanceof ControlFact)) {
      throw new EventRejectedException(
          envelope.type() + " is not a control-plane fact; fleet.control-facts holds only facts");
    }
    return (Envelope<ControlFact>) (Envelope<?>) envelope;
  }
}
