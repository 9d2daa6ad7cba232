package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

/**
 * Where one planned node stands in a rollout (an item of GET /api/v1/rollouts/{id}/nodes): its row
 * of rollout_node_states, whose columns are fields of the item in the JSON, and how long it took.
 *
 * @param elapsedMillis from start to finish (or to now while in flight), null before it started
 */
// The row's fields first and in their order, in the OpenAPI document as in the JSON:
// smallrye-openapi lists unwrapped properties in no particular order.
@JsonPropertyOrder({
  "node",
  "wave",
  "phase",
  "state",
  "generation",
  "reason",
  "startedAt",
  "finishedAt"
})
public record RolloutNodeView(@JsonUnwrapped RolloutRows.NodeState row, Long elapsedMillis) {}
