package io.fleetwave.controlplane.rollout.store;

import io.fleetwave.core.rollout.decide.RolloutState;
import java.time.Instant;
import java.util.UUID;

/** A rollout in a listing. */
public record RolloutSummary(
    UUID id,
    String name,
    RolloutState state,
    Instant createdAt,
    int plannedNodes,
    String migConfig,
    String driverVersion) {}
