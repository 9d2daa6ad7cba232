package io.fleetwave.controlplane.rollout.store;

import java.time.Instant;

/**
 * Where one planned node stands in a rollout (an item of GET /api/v1/rollouts/{id}/nodes).
 *
 * @param wave 1 = the canary
 * @param phase forward, or rollback once the node is being put back
 * @param state pending, in-flight, succeeded, failed or skipped (revoked before it was started)
 * @param generation the spec generation sent to the node, null before
 * @param reason why it failed (or was kept out of service), null otherwise
 * @param elapsedMillis from start to finish (or to now while in flight), null before it started
 */
public record RolloutNodeView(
    String node,
    int wave,
    String phase,
    String state,
    Long generation,
    String reason,
    Instant startedAt,
    Instant finishedAt,
    Long elapsedMillis) {}
