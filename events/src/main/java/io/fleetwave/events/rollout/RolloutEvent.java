package io.fleetwave.events.rollout;

import io.fleetwave.events.payload.FleetEvent;

/**
 * Everything on {@code fleet.rollout-events}: a rollout's own event-sourced state. The envelope's
 * subject is the rollout id (also the record key) and its seq counts the rollout's events from 1,
 * so a reader applies each event once and in order.
 */
public sealed interface RolloutEvent extends FleetEvent
    permits RolloutCreated,
        WaveStarted,
        NodeStarted,
        NodeSucceeded,
        NodeFailed,
        WaveCompleted,
        WavePromoted,
        RolloutPaused,
        RolloutResumed,
        RolloutAborted,
        RollbackStarted,
        RolloutCompleted,
        DriverInstallRequested,
        OsUpgradeRequested,
        NodeTakenOutOfService,
        NodeReturnedToService,
        NodeKeptOutOfService,
        RolloutFailed,
        RolloutCreatedInChunks,
        RolloutPlanChunk,
        NodeSkipped {

  /** The actor of the engine's own decisions (a threshold crossed, a wave promoted by itself). */
  String SYSTEM = "system";

  /** The actor of decisions logged before events named one (their v1). */
  String UNKNOWN_ACTOR = "unknown";
}
