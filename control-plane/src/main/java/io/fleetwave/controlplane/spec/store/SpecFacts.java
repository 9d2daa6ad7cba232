package io.fleetwave.controlplane.spec.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fleetwave.controlplane.database.ColumnArrays;
import io.fleetwave.controlplane.facts.AppliedFacts;
import io.fleetwave.controlplane.facts.FactBackfill;
import io.fleetwave.events.Envelope;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.fact.CommandGenerationUsed;
import io.fleetwave.events.fact.ControlFact;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;

/**
 * The desired_specs and command_generations tables as projections of the spec facts of
 * fleet.control-facts, each applied once: the request that appended them, a replica following the
 * topic and a rebuild all come here. Both counters only grow, so a rebuilt control plane numbers
 * the next spec and command above every generation an agent was sent.
 */
public final class SpecFacts {
  private SpecFacts() {}

  /**
   * Applies the {@link DesiredSpecSet} facts in the caller's transaction, those not applied yet.
   */
  public static Uni<Void> specsSet(SqlClient tx, List<Envelope<ControlFact>> facts) {
    return AppliedFacts.firstOf(tx, facts.stream().map(Envelope::id).toList())
        .chain(
            first ->
                saveAll(
                    tx,
                    facts.stream()
                        .filter(fact -> first.contains(fact.id()))
                        .map(fact -> (DesiredSpecSet) fact.data())
                        .toList()));
  }

  /** Applies a {@link CommandGenerationUsed} fact in the caller's transaction, once. */
  public static Uni<Void> commandGenerationUsed(
      SqlClient tx, Envelope<ControlFact> fact, CommandGenerationUsed used) {
    return AppliedFacts.once(tx, fact.id(), () -> useCommandGeneration(tx, fact.subject(), used));
  }

  /**
   * Up to {@code limit} desired specs and up to {@code limit} command counters written before they
   * were facts (V34), as their facts.
   */
  public static Uni<List<FactBackfill>> toBackfill(SqlClient conn, int limit) {
    Uni<List<FactBackfill>> specs =
        FactBackfill.listed(
            conn,
            "desired_specs",
            "t.node, t.spec, t.actor, t.updated_at",
            "t.node",
            "b.row_key",
            limit,
            row -> row.getString("node"),
            row ->
                new DesiredSpecSet(
                    decode(row.getJsonObject("spec")),
                    row.getString("actor"),
                    row.getOffsetDateTime("updated_at").toInstant()));
    Uni<List<FactBackfill>> commands =
        FactBackfill.listed(
            conn,
            "command_generations",
            "t.node, t.generation, t.updated_at",
            "t.node",
            "b.row_key",
            limit,
            row -> row.getString("node"),
            row ->
                new CommandGenerationUsed(
                    row.getLong("generation"), row.getOffsetDateTime("updated_at").toInstant()));
    return specs.chain(
        first -> commands.map(second -> Stream.concat(first.stream(), second.stream()).toList()));
  }

  /** The command generation used; the counter never goes down (a fact applied late or again). */
  private static Uni<Void> useCommandGeneration(
      SqlClient conn, String node, CommandGenerationUsed used) {
    return conn.preparedQuery(
            "INSERT INTO command_generations (node, generation, updated_at) VALUES ($1, $2, $3)"
                + " ON CONFLICT (node) DO UPDATE SET generation = EXCLUDED.generation,"
                + " updated_at = EXCLUDED.updated_at"
                + " WHERE command_generations.generation < EXCLUDED.generation")
        .execute(Tuple.of(node, used.generation(), used.at().atOffset(ZoneOffset.UTC)))
        .replaceWithVoid();
  }

  /**
   * Saves the specs set, with who set them and when; a node's row only ever moves to a higher
   * generation. A generation set twice (an engine that takes over sends its in-flight specs again,
   * a fact each) keeps its first time, whichever fact is applied first: a request applies its own
   * fact at once, while the follower may still be retrying an older one (PostgreSQL away), and a
   * rebuild applies them in log order; the live and rebuilt tables must agree.
   */
  private static Uni<Void> saveAll(SqlClient conn, List<DesiredSpecSet> specs) {
    if (specs.isEmpty()) {
      return Uni.createFrom().voidItem();
    }
    // desired_spec_history (V35) keeps every generation, for the fleet as of a past moment.
    return conn.preparedQuery(
            "WITH x AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[],"
                + " $4::timestamptz[], $5::text[]) AS x (n, g, s, t, a)),"
                + " history AS (INSERT INTO desired_spec_history (node, generation, spec, set_at)"
                + " SELECT n, g, s::jsonb, t FROM x ON CONFLICT (node, generation) DO UPDATE"
                + " SET spec = EXCLUDED.spec, set_at = EXCLUDED.set_at"
                + " WHERE desired_spec_history.set_at > EXCLUDED.set_at)"
                + " INSERT INTO desired_specs (node, generation, spec, updated_at, actor)"
                + " SELECT n, g, s::jsonb, t, a FROM x"
                + " ON CONFLICT (node) DO UPDATE SET generation = EXCLUDED.generation,"
                + " spec = EXCLUDED.spec, updated_at = EXCLUDED.updated_at, actor = EXCLUDED.actor"
                + " WHERE desired_specs.generation < EXCLUDED.generation"
                + " OR (desired_specs.generation = EXCLUDED.generation"
                + " AND desired_specs.updated_at > EXCLUDED.updated_at)")
        .execute(
            ColumnArrays.of(specs)
                .strings(set -> set.spec().node())
                .longs(set -> set.spec().generation())
                .strings(set -> encode(set.spec()).encode())
                .times(DesiredSpecSet::at)
                .strings(DesiredSpecSet::actor)
                .tuple())
        .replaceWithVoid();
  }

  /** A spec as desired_specs stores it (jsonb). */
  public static JsonObject encode(NodeSpec spec) {
    try {
      return new JsonObject(EventCodec.mapper().writeValueAsString(spec));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode the spec of " + spec.node(), e);
    }
  }

  /** A spec as desired_specs stores it, decoded. */
  public static NodeSpec decode(JsonObject json) {
    try {
      return EventCodec.mapper().readValue(json.encode(), NodeSpec.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "a stored desired spec does not decode: " + e.getMessage(), e);
    }
  }
}
