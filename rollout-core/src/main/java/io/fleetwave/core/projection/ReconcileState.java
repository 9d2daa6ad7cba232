package io.fleetwave.core.projection;

import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where a node's reconcile stands, folded from its progress events: the newest accepted and applied
 * spec generations, the steps of the accepted generation, the device-plugin gate, whether a boot
 * has not been followed by a re-apply yet, and the last failure and rejection. Immutable; {@link
 * #apply} is pure.
 *
 * @param gate {@code held}, {@code released}, or null before any gate event
 * @param bootPending the node booted after its last SpecApplied (a boot loses MIG, VFs, instances)
 * @param failure the failed step of the accepted generation, or null
 * @param rejection the newest refused spec or command, or null
 */
public record ReconcileState(
    long acceptedGeneration,
    long appliedGeneration,
    String gate,
    Long gateGeneration,
    String gateReason,
    String bootId,
    boolean bootPending,
    Failure failure,
    Rejected rejection,
    List<Step> steps) {

  public static final ReconcileState NONE =
      new ReconcileState(0, 0, null, null, null, null, false, null, null, List.of());

  public static final String PLANNED = "planned";
  public static final String STARTED = "started";
  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";

  public ReconcileState {
    steps = steps.stream().sorted(Comparator.comparingInt(s -> s.step().ordinal())).toList();
  }

  /** One step of the accepted generation and how far it got. */
  public record Step(
      long generation,
      PlannedStep step,
      String state,
      String reason,
      String holder,
      Long elapsedMillis) {}

  public record Failure(
      long generation, StepKind kind, Integer gpu, String reason, String holder) {}

  public record Rejected(long generation, String code, String reason) {}

  /** Whether an event changes this state (the others only move the node's position). */
  public static boolean concerns(NodeEvent event) {
    return switch (event) {
      case SpecAccepted _,
          StepStarted _,
          StepSucceeded _,
          StepFailed _,
          SpecApplied _,
          SpecRejected _,
          GateHeld _,
          GateReleased _,
          NodeBooted _ ->
          true;
      default -> false;
    };
  }

  public ReconcileState apply(NodeEvent event) {
    return switch (event) {
      case SpecAccepted accepted -> accepted(accepted);
      case StepStarted started ->
          step(started.generation(), started.step(), STARTED, null, null, null);
      case StepSucceeded done ->
          step(done.generation(), done.step(), SUCCEEDED, null, null, done.elapsedMillis());
      case StepFailed failed -> failed(failed);
      case SpecApplied applied -> applied(applied.generation());
      case SpecRejected rejected ->
          with(
              acceptedGeneration,
              appliedGeneration,
              bootPending,
              failure,
              new Rejected(rejected.generation(), rejected.code(), rejected.reason()),
              steps);
      case GateHeld held ->
          new ReconcileState(
              acceptedGeneration,
              appliedGeneration,
              "held",
              held.generation(),
              held.reason(),
              bootId,
              bootPending,
              failure,
              rejection,
              steps);
      case GateReleased released ->
          new ReconcileState(
              acceptedGeneration,
              appliedGeneration,
              "released",
              released.generation(),
              null,
              bootId,
              bootPending,
              failure,
              rejection,
              steps);
      case NodeBooted booted ->
          new ReconcileState(
              acceptedGeneration,
              appliedGeneration,
              gate,
              gateGeneration,
              gateReason,
              booted.bootId(),
              appliedGeneration > 0,
              failure,
              rejection,
              steps);
      default -> this;
    };
  }

  private ReconcileState accepted(SpecAccepted accepted) {
    if (accepted.generation() < acceptedGeneration) {
      return this; // a late event of a superseded spec
    }
    List<Step> planned =
        accepted.steps().stream()
            .map(s -> new Step(accepted.generation(), s, PLANNED, null, null, null))
            .toList();
    Rejected stillRejected =
        rejection != null && rejection.generation() > accepted.generation() ? rejection : null;
    return with(
        accepted.generation(), appliedGeneration, bootPending, null, stillRejected, planned);
  }

  private ReconcileState step(
      long generation, PlannedStep step, String state, String reason, String holder, Long elapsed) {
    if (generation < acceptedGeneration) {
      return this;
    }
    // A step of a newer generation whose SpecAccepted was never seen starts a fresh list.
    List<Step> next = new ArrayList<>(generation > acceptedGeneration ? List.of() : steps);
    next.removeIf(s -> s.step().ordinal() == step.ordinal());
    next.add(new Step(generation, step, state, reason, holder, elapsed));
    return with(generation, appliedGeneration, bootPending, failure, rejection, next);
  }

  @SuppressWarnings("ReferenceEquality") // step() returns this object itself when nothing changed
  private ReconcileState failed(StepFailed failed) {
    ReconcileState stepped =
        step(
            failed.generation(),
            failed.step(),
            FAILED,
            failed.reason(),
            failed.holder(),
            failed.elapsedMillis());
    if (stepped == this) {
      return this;
    }
    Failure failure =
        new Failure(
            failed.generation(),
            failed.step().kind(),
            failed.step().gpu(),
            failed.reason(),
            failed.holder());
    return stepped.with(
        stepped.acceptedGeneration,
        appliedGeneration,
        bootPending,
        failure,
        rejection,
        stepped.steps);
  }

  private ReconcileState applied(long generation) {
    if (generation < appliedGeneration) {
      return this;
    }
    long accepted = Math.max(acceptedGeneration, generation);
    Failure stillFailed = failure != null && failure.generation() > generation ? failure : null;
    Rejected stillRejected =
        rejection != null && rejection.generation() > generation ? rejection : null;
    return with(accepted, generation, false, stillFailed, stillRejected, steps);
  }

  private ReconcileState with(
      long accepted,
      long applied,
      boolean bootPending,
      Failure failure,
      Rejected rejection,
      List<Step> steps) {
    return new ReconcileState(
        accepted,
        applied,
        gate,
        gateGeneration,
        gateReason,
        bootId,
        bootPending,
        failure,
        rejection,
        steps);
  }
}
