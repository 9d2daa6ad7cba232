package io.fleetwave.core.rollout.decide;

import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeSkipped;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.RollbackStarted;
import io.fleetwave.events.rollout.RolloutAborted;
import io.fleetwave.events.rollout.RolloutCompleted;
import io.fleetwave.events.rollout.RolloutCreated;
import io.fleetwave.events.rollout.RolloutCreatedInChunks;
import io.fleetwave.events.rollout.RolloutEvent;
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;

/**
 * What one appended rollout event makes happen outside the log: each event maps to its one effect
 * ({@link #of}), which the control plane's engine carries out. Pure, so the decider's properties
 * check the effects the log announces without the engine.
 */
public sealed interface Effect {
  /** Nothing outside the log changes. */
  record None() implements Effect {}

  /** Watch the node's results and hand it over (after taking it out of service, with a drain). */
  record Start(String node) implements Effect {}

  /** The node is out of service: hand over its spec and its logged driver request. */
  record HandOver(String node) implements Effect {}

  /** The node finished: put it back in service, or keep it out after a failure (with a drain). */
  record Release(String node) implements Effect {}

  /** The rollout stopped with nodes in flight: their pauses are undone, they stay cordoned. */
  record Abandon() implements Effect {}

  /** The one effect of an event; listed, not defaulted, so a new event type fails to compile. */
  static Effect of(RolloutEvent event) {
    return switch (event) {
      case NodeStarted started -> new Effect.Start(started.node());
      case NodeTakenOutOfService out -> new Effect.HandOver(out.node());
      case NodeSucceeded done -> new Effect.Release(done.node());
      case NodeFailed failed -> new Effect.Release(failed.node());
      case RolloutAborted _ -> new Effect.Abandon();
      // Handed to the executor with its node's spec, as logged (NodeRun#driverRequest): the spec
      // goes first, and with a drain only once the node is out of service.
      case DriverInstallRequested _, OsUpgradeRequested _ -> new None();
      // The drain's own reports: what they announce has happened.
      case NodeReturnedToService _, NodeKeptOutOfService _ -> new None();
      // Left out before it was started: nothing was sent, nothing is.
      case NodeSkipped _ -> new None();
      // A log that cannot be folded says nothing to act on: its nodes stay as they are.
      case RolloutFailed _ -> new None();
      case RolloutCreated _,
          RolloutCreatedInChunks _,
          RolloutPlanChunk _,
          WaveStarted _,
          WaveCompleted _,
          WavePromoted _,
          RolloutPaused _,
          RolloutResumed _,
          RollbackStarted _,
          RolloutCompleted _ ->
          new None();
    };
  }
}
