package io.fleetwave.controlplane.rollout.engine;

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
import java.util.Optional;

/**
 * One log line per decision the engine appended, and the node it is about (for the log's MDC).
 * Switches list every event type, not a default, so a new one fails to compile here until it has
 * its line.
 */
final class DecisionLines {
  private DecisionLines() {}

  /** The node the decision is about; empty for decisions about the rollout or a wave. */
  static Optional<String> node(RolloutEvent event) {
    return Optional.ofNullable(
        switch (event) {
          case NodeStarted e -> e.node();
          case NodeSucceeded e -> e.node();
          case NodeFailed e -> e.node();
          case DriverInstallRequested e -> e.node();
          case OsUpgradeRequested e -> e.node();
          case NodeTakenOutOfService e -> e.node();
          case NodeReturnedToService e -> e.node();
          case NodeKeptOutOfService e -> e.node();
          case NodeSkipped e -> e.node();
          case RolloutCreated _,
              RolloutCreatedInChunks _,
              RolloutPlanChunk _,
              WaveStarted _,
              WaveCompleted _,
              WavePromoted _,
              RolloutPaused _,
              RolloutResumed _,
              RolloutAborted _,
              RollbackStarted _,
              RolloutCompleted _,
              RolloutFailed _ ->
              null;
        });
  }

  /** What was decided, in a few words: {@code NodeStarted gpu-7 wave 2 forward generation 12}. */
  static String describe(RolloutEvent event) {
    return switch (event) {
      case RolloutCreated e ->
          "RolloutCreated "
              + e.name()
              + " by "
              + e.actor()
              + ": "
              + e.waves().size()
              + " wave(s), "
              + e.waves().stream().mapToInt(java.util.List::size).sum()
              + " node(s)";
      case RolloutCreatedInChunks e ->
          "RolloutCreatedInChunks " + e.name() + " by " + e.actor() + ": " + e.chunks() + " chunks";
      case RolloutPlanChunk e -> "RolloutPlanChunk " + e.index();
      case WaveStarted e -> "WaveStarted " + e.wave();
      case NodeStarted e ->
          "NodeStarted "
              + e.node()
              + " wave "
              + e.wave()
              + " "
              + e.phase().name().toLowerCase(java.util.Locale.ROOT)
              + " generation "
              + e.generation();
      case NodeSucceeded e ->
          "NodeSucceeded " + e.node() + " wave " + e.wave() + " in " + seconds(e.elapsedMillis());
      case NodeFailed e ->
          "NodeFailed "
              + e.node()
              + " wave "
              + e.wave()
              + " after "
              + seconds(e.elapsedMillis())
              + ": "
              + e.cause().describe();
      case DriverInstallRequested e ->
          "DriverInstallRequested "
              + e.node()
              + " driver "
              + e.driverVersion()
              + " ("
              + e.artifactKind()
              + ")";
      case OsUpgradeRequested e ->
          "OsUpgradeRequested "
              + e.node()
              + " driver "
              + e.driverVersion()
              + " with "
              + e.osId()
              + " "
              + e.osVersion();
      case NodeTakenOutOfService e -> "NodeTakenOutOfService " + e.node();
      case NodeReturnedToService e -> "NodeReturnedToService " + e.node();
      case NodeKeptOutOfService e -> "NodeKeptOutOfService " + e.node() + ": " + e.reason();
      case NodeSkipped e -> "NodeSkipped " + e.node() + " (wave " + e.wave() + "): " + e.reason();
      case WaveCompleted e ->
          "WaveCompleted "
              + e.wave()
              + ": "
              + e.succeeded()
              + " succeeded, "
              + e.failed()
              + " failed";
      case WavePromoted e -> "WavePromoted " + e.wave() + " by " + e.actor();
      case RolloutPaused e -> "RolloutPaused by " + e.actor() + ": " + e.reason();
      case RolloutResumed e -> "RolloutResumed by " + e.actor() + ": " + e.reason();
      case RolloutAborted e -> "RolloutAborted by " + e.actor() + ": " + e.reason();
      case RollbackStarted e -> "RollbackStarted by " + e.actor() + ": " + e.reason();
      case RolloutCompleted e ->
          "RolloutCompleted"
              + (e.rolledBack() ? " (rolled back)" : "")
              + ": "
              + e.succeeded()
              + " succeeded, "
              + e.failed()
              + " failed";
      case RolloutFailed e -> "RolloutFailed: " + e.describe();
    };
  }

  private static String seconds(long millis) {
    return String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
