package io.fleetwave.events;

import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.Reprobe;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.fact.AuditRecorded;
import io.fleetwave.events.fact.CommandGenerationUsed;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.fact.JoinTokenCreated;
import io.fleetwave.events.fact.MigConfigsImported;
import io.fleetwave.events.fact.NodeKeyEnrolled;
import io.fleetwave.events.fact.NodeReadmitted;
import io.fleetwave.events.fact.NodeRevoked;
import io.fleetwave.events.fact.OperatorRequestHandled;
import io.fleetwave.events.fact.OperatorRequested;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.events.payload.FleetEvent;
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
import io.fleetwave.events.rollout.RolloutFailed;
import io.fleetwave.events.rollout.RolloutPaused;
import io.fleetwave.events.rollout.RolloutPlanChunk;
import io.fleetwave.events.rollout.RolloutResumed;
import io.fleetwave.events.rollout.WaveCompleted;
import io.fleetwave.events.rollout.WavePromoted;
import io.fleetwave.events.rollout.WaveStarted;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The registry of event types this build understands, by name and by payload class. */
public final class EventTypes {
  private static final Pattern VERSIONED = Pattern.compile("^(.+)\\.v([1-9][0-9]{0,8})$");

  private static final List<EventType> KNOWN =
      List.of(
          new EventType("io.fleetwave.node.registered", 1, NodeRegistered.class),
          new EventType("io.fleetwave.node.gpu-inventory-reported", 1, GpuInventoryReported.class),
          new EventType("io.fleetwave.node.heartbeat", 1, Heartbeat.class),
          new EventType("io.fleetwave.node.agent-stopping", 1, AgentStopping.class),
          // Issue 4: reconcile progress, on fleet.node-events.
          new EventType("io.fleetwave.node.booted", 1, NodeBooted.class),
          new EventType("io.fleetwave.node.spec-accepted", 1, SpecAccepted.class),
          new EventType("io.fleetwave.node.spec-rejected", 1, SpecRejected.class),
          new EventType("io.fleetwave.node.step-started", 1, StepStarted.class),
          new EventType("io.fleetwave.node.step-succeeded", 1, StepSucceeded.class),
          new EventType("io.fleetwave.node.step-failed", 1, StepFailed.class),
          new EventType("io.fleetwave.node.spec-applied", 1, SpecApplied.class),
          new EventType("io.fleetwave.node.gate-held", 1, GateHeld.class),
          new EventType("io.fleetwave.node.gate-released", 1, GateReleased.class),
          // Issue 11: the agent's spool or memory queue hit its bound while the broker was away.
          new EventType("io.fleetwave.node.events-dropped", 1, EventsDropped.class),
          // Issue 4: signed commands, on fleet.node-desired and fleet.node-commands.
          new EventType("io.fleetwave.command.apply-node-spec", 1, ApplyNodeSpec.class),
          new EventType("io.fleetwave.command.reset-gpu", 1, ResetGpu.class),
          new EventType("io.fleetwave.command.reprobe", 1, Reprobe.class),
          // Issue 5: the rollout engine's own stream, on fleet.rollout-events.
          // Issue 10: the rollout events that record a decision carry typed causes and the actor.
          new EventType("io.fleetwave.rollout.created", 2, RolloutCreated.class, 1),
          new EventType("io.fleetwave.rollout.wave-started", 1, WaveStarted.class),
          new EventType("io.fleetwave.rollout.node-started", 1, NodeStarted.class),
          new EventType("io.fleetwave.rollout.node-succeeded", 1, NodeSucceeded.class),
          new EventType("io.fleetwave.rollout.node-failed", 2, NodeFailed.class, 1),
          new EventType("io.fleetwave.rollout.wave-completed", 1, WaveCompleted.class),
          new EventType("io.fleetwave.rollout.wave-promoted", 2, WavePromoted.class, 1),
          new EventType("io.fleetwave.rollout.paused", 2, RolloutPaused.class, 1),
          new EventType("io.fleetwave.rollout.resumed", 2, RolloutResumed.class, 1),
          new EventType("io.fleetwave.rollout.aborted", 2, RolloutAborted.class, 1),
          new EventType("io.fleetwave.rollout.rollback-started", 2, RollbackStarted.class, 1),
          new EventType("io.fleetwave.rollout.completed", 1, RolloutCompleted.class),
          new EventType(
              "io.fleetwave.rollout.driver-install-requested", 1, DriverInstallRequested.class),
          new EventType("io.fleetwave.rollout.os-upgrade-requested", 1, OsUpgradeRequested.class),
          // Issue 9: nodes taken out of service around their change (Kubernetes cordon and drain).
          new EventType(
              "io.fleetwave.rollout.node-taken-out-of-service", 1, NodeTakenOutOfService.class),
          new EventType(
              "io.fleetwave.rollout.node-returned-to-service", 1, NodeReturnedToService.class),
          new EventType(
              "io.fleetwave.rollout.node-kept-out-of-service", 1, NodeKeptOutOfService.class),
          // Issue 11: a record the fold cannot apply fails its rollout only; a creation too large
          // for one record is logged in chunks.
          new EventType("io.fleetwave.rollout.failed", 1, RolloutFailed.class),
          new EventType("io.fleetwave.rollout.created-in-chunks", 1, RolloutCreatedInChunks.class),
          new EventType("io.fleetwave.rollout.plan-chunk", 1, RolloutPlanChunk.class),
          // Issue 32: a node revoked before its rollout started it is skipped, never sent the spec.
          new EventType("io.fleetwave.rollout.node-skipped", 1, NodeSkipped.class),
          // Issue 33: the control plane's own facts, on fleet.control-facts, so that PostgreSQL
          // holds nothing the log cannot rebuild.
          new EventType("io.fleetwave.fact.node-key-enrolled", 1, NodeKeyEnrolled.class),
          new EventType("io.fleetwave.fact.node-revoked", 1, NodeRevoked.class),
          new EventType("io.fleetwave.fact.node-readmitted", 1, NodeReadmitted.class),
          new EventType("io.fleetwave.fact.join-token-created", 1, JoinTokenCreated.class),
          new EventType("io.fleetwave.fact.mig-configs-imported", 1, MigConfigsImported.class),
          new EventType("io.fleetwave.fact.audit-recorded", 1, AuditRecorded.class),
          new EventType("io.fleetwave.fact.desired-spec-set", 1, DesiredSpecSet.class),
          new EventType(
              "io.fleetwave.fact.command-generation-used", 1, CommandGenerationUsed.class),
          new EventType("io.fleetwave.fact.operator-requested", 1, OperatorRequested.class),
          new EventType(
              "io.fleetwave.fact.operator-request-handled", 1, OperatorRequestHandled.class));

  private static final Map<String, EventType> BY_NAME =
      KNOWN.stream().collect(Collectors.toUnmodifiableMap(EventType::name, Function.identity()));
  private static final Map<Class<?>, EventType> BY_PAYLOAD =
      KNOWN.stream().collect(Collectors.toUnmodifiableMap(EventType::payload, Function.identity()));

  private EventTypes() {}

  /** The version a wire type names (its {@code .vN} suffix), or 0 when it has none. */
  public static int versionOf(String wireType) {
    Matcher matcher = VERSIONED.matcher(wireType == null ? "" : wireType);
    return matcher.matches() ? Integer.parseInt(matcher.group(2)) : 0;
  }

  public static List<EventType> all() {
    return KNOWN;
  }

  /** The wire type of a payload, e.g. {@code io.fleetwave.node.heartbeat.v1}. */
  public static String typeOf(FleetEvent payload) {
    EventType type = BY_PAYLOAD.get(payload.getClass());
    if (type == null) {
      throw new IllegalArgumentException(
          "no event type registered for " + payload.getClass().getName());
    }
    return type.wireType();
  }

  /**
   * Resolves a wire type, refusing unknown names, versions newer than this build knows and versions
   * older than its oldest readable one. The data of an older readable version is upcast by the
   * codec ({@link io.fleetwave.events.codec.Upcasters}) before it is decoded.
   */
  public static EventType resolve(String wireType) throws EventRejectedException {
    Matcher matcher = VERSIONED.matcher(wireType == null ? "" : wireType);
    if (!matcher.matches()) {
      throw new EventRejectedException(
          "event type '" + wireType + "' has no version suffix (expected NAME.vN)");
    }
    EventType known = BY_NAME.get(matcher.group(1));
    if (known == null) {
      throw new EventRejectedException("unknown event type '" + wireType + "'");
    }
    int version = Integer.parseInt(matcher.group(2));
    if (version > known.version()) {
      throw new EventRejectedException(
          "event type '"
              + wireType
              + "' is newer than this build understands (up to v"
              + known.version()
              + ")");
    }
    if (version < known.oldestReadable()) {
      throw new EventRejectedException(
          "event type '" + wireType + "' is an old version with no upcaster");
    }
    return known;
  }
}
