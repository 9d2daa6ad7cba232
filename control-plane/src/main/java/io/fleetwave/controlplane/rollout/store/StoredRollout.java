package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.UUID;

/**
 * A stored rollout: the request and the plan exactly as they were stored at creation.
 *
 * @param spec the request (RolloutSpec as JSON)
 * @param plan the plan shown by the dry run of the same request (RolloutPlan as JSON)
 */
public record StoredRollout(
    UUID id,
    String name,
    RolloutState state,
    Instant createdAt,
    Instant updatedAt,
    JsonNode spec,
    JsonNode plan) {}
