package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.core.rollout.decide.RolloutState;
import java.time.Instant;
import java.util.UUID;

/**
 * A rollout just stored (the 201 of its creation).
 *
 * @param spec the request (RolloutSpec as JSON)
 * @param plan the plan as GET /api/v1/rollouts/{id} shows it ({@link ShownPlan}): as the dry run of
 *     the same request shows it up to 500 planned nodes, cut above
 */
public record StoredRollout(
    UUID id,
    String name,
    RolloutState state,
    Instant createdAt,
    Instant updatedAt,
    JsonNode spec,
    JsonNode plan) {}
