package io.fleetwave.controlplane.rollout.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.fleetwave.core.rollout.decide.RolloutState;
import java.time.Instant;
import java.util.UUID;

/** A rollout as the API shows it: the request, the plan shown for it, and its progress. */
public record RolloutView(
    UUID id,
    String name,
    RolloutState state,
    Instant createdAt,
    Instant updatedAt,
    RolloutProgress progress,
    JsonNode spec,
    JsonNode plan) {}
