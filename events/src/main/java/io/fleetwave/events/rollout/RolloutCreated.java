package io.fleetwave.events.rollout;

import static io.fleetwave.events.payload.Require.notBlank;
import static io.fleetwave.events.payload.Require.notNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * A rollout was created: the nodes of each wave, canary first, fixed for its whole life, and (v2)
 * everything the engine runs it by, so the log alone rebuilds it.
 *
 * @param waves node names per wave, in the order the plan runs them
 * @param spec the request as the API took it (the control plane's RolloutSpec document); null only
 *     for rollouts logged as v1, whose request is kept in PostgreSQL alone
 * @param plan what each node gets and the limits the rollout runs under (the control plane's
 *     RolloutPlan document); null only for rollouts logged as v1
 * @param actor who created it (the token subject), {@link RolloutEvent#UNKNOWN_ACTOR} for v1
 */
public record RolloutCreated(
    String name, List<List<String>> waves, JsonNode spec, JsonNode plan, String actor)
    implements RolloutEvent {
  public RolloutCreated {
    notBlank(name, "name");
    notNull(waves, "waves");
    waves = waves.stream().map(List::copyOf).toList();
    if (waves.isEmpty()) {
      throw new IllegalArgumentException("field 'waves' must not be empty");
    }
    // A JSON null reads as a NullNode: absent either way.
    spec = spec == null || spec.isNull() ? null : spec;
    plan = plan == null || plan.isNull() ? null : plan;
    if (spec != null && !spec.isObject()) {
      throw new IllegalArgumentException("field 'spec' must be an object");
    }
    if (plan != null && !plan.isObject()) {
      throw new IllegalArgumentException("field 'plan' must be an object");
    }
    notBlank(actor, "actor");
  }

  /** Whether the rollout was logged with its spec and plan (v2), so the log alone rebuilds it. */
  public boolean selfContained() {
    return spec != null && plan != null;
  }
}
