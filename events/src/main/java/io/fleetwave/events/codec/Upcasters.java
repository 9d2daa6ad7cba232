package io.fleetwave.events.codec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fleetwave.events.EventType;
import io.fleetwave.events.rollout.RolloutEvent;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Turns the data of an older version of an event type into the next version's, step by step, so old
 * logs still replay after a type gains a version. One entry per old version: {@code name.vN} to
 * {@code name.v(N+1)}. Every version from a type's oldest readable one up to its current one has an
 * entry (checked by the contract tests).
 */
public final class Upcasters {
  private static final Map<String, UnaryOperator<ObjectNode>> STEPS =
      Map.of(
          // v1 named the waves only: the spec and plan were in PostgreSQL alone.
          "io.fleetwave.rollout.created.v1",
          data -> {
            data.putNull("spec");
            data.putNull("plan");
            return unknownActor(data);
          },
          // v1 carried the cause as text only: it stays text, as an unclassified cause.
          "io.fleetwave.rollout.node-failed.v1",
          data -> {
            ObjectNode cause = data.objectNode();
            cause.put("kind", "unclassified");
            cause.set("text", data.get("reason"));
            data.remove("reason");
            data.set("cause", cause);
            return data;
          },
          "io.fleetwave.rollout.paused.v1",
          Upcasters::unknownActor,
          "io.fleetwave.rollout.resumed.v1",
          Upcasters::unknownActor,
          "io.fleetwave.rollout.aborted.v1",
          Upcasters::unknownActor,
          "io.fleetwave.rollout.rollback-started.v1",
          Upcasters::unknownActor,
          "io.fleetwave.rollout.wave-promoted.v1",
          Upcasters::unknownActor);

  private Upcasters() {}

  /** v1 operator decisions did not say who made them. */
  private static ObjectNode unknownActor(ObjectNode data) {
    data.put("actor", RolloutEvent.UNKNOWN_ACTOR);
    return data;
  }

  /** Whether the data of {@code type} at {@code version} can be brought to its next version. */
  public static boolean has(EventType type, int version) {
    return STEPS.containsKey(type.wireType(version));
  }

  /** The data of {@code type} written at {@code version}, as its current version reads it. */
  static ObjectNode upcast(EventType type, int version, ObjectNode data) {
    ObjectNode current = data.deepCopy();
    for (int v = version; v < type.version(); v++) {
      UnaryOperator<ObjectNode> step = STEPS.get(type.wireType(v));
      if (step == null) {
        throw new IllegalStateException("no upcaster from " + type.wireType(v));
      }
      current = step.apply(current);
    }
    return current;
  }
}
