package io.fleetwave.core.provenance;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns the applied node events of a batch, in log order, into the changes they reveal: each
 * registration is compared with the node's last driver, each inventory with its last GPUs. A change
 * carries the step that made it (a step of the same GPU whose kind changes that aspect, run since
 * the previous inventory), the spec generation accepted then, and the boot it came with. It reads
 * nothing but the node's events, in the projection's own order, so a rebuild of the projection
 * finds the same changes.
 */
public final class ChangeFold {
  private ChangeFold() {}

  /**
   * The result of a batch: the nodes whose provenance moved, the changes seen, and the boots that
   * earlier batches' changes of the same run came with.
   */
  public record Result(
      Map<String, NodeProvenance> nodes, List<ObservedChange> changes, List<BootSeen> boots) {}

  /**
   * A NodeBooted at (epoch, seq): the changes of the node recorded before it in the same epoch,
   * that no step made, came with boot {@code bootId}.
   */
  public record BootSeen(String node, long epoch, long seq, String bootId) {}

  /** Whether an event can move a node's provenance (heartbeats and the like never do). */
  public static boolean concerns(NodeEvent event) {
    return switch (event) {
      case NodeRegistered _,
          GpuInventoryReported _,
          NodeBooted _,
          SpecAccepted _,
          SpecApplied _,
          StepStarted _,
          StepSucceeded _,
          StepFailed _ ->
          true;
      default -> false;
    };
  }

  public static Result fold(Map<String, NodeProvenance> stored, List<Envelope<NodeEvent>> applied) {
    Map<String, NodeProvenance> current = new HashMap<>();
    Map<String, NodeProvenance> moved = new LinkedHashMap<>();
    List<ObservedChange> changes = new ArrayList<>();
    List<BootSeen> boots = new ArrayList<>();
    for (Envelope<NodeEvent> event : applied) {
      if (!concerns(event.data())) {
        continue;
      }
      String node = event.subject();
      if (event.data() instanceof NodeBooted booted) {
        boots.add(new BootSeen(node, event.epoch(), event.seq(), booted.bootId()));
        changes.replaceAll(
            c ->
                c.node().equals(node)
                        && c.epoch() == event.epoch()
                        && c.stepGeneration() == null
                        && c.bootId() == null
                    ? c.withBoot(booted.bootId())
                    : c);
      }
      NodeProvenance before =
          current.computeIfAbsent(node, n -> stored.getOrDefault(n, NodeProvenance.NONE));
      NodeProvenance after = apply(before, event, changes);
      current.put(node, after);
      if (!after.equals(stored.getOrDefault(node, NodeProvenance.NONE))) {
        moved.put(node, after);
      } else {
        moved.remove(node);
      }
    }
    return new Result(moved, changes, boots);
  }

  private static NodeProvenance apply(
      NodeProvenance p, Envelope<NodeEvent> event, List<ObservedChange> changes) {
    return switch (event.data()) {
      case NodeRegistered registered -> {
        Observation next = p.observation().withDriver(registered.driverVersion());
        Map<AspectKey, NodeProvenance.UnexplainedRun> unexplained =
            p.driverSeen() ? record(p, event, next, changes) : p.unexplained();
        yield new NodeProvenance(
            next, true, p.gpusSeen(), p.acceptedGeneration(), p.touched(), unexplained);
      }
      case GpuInventoryReported inventory -> {
        Observation next = p.observation().withGpus(inventory.gpus());
        Map<AspectKey, NodeProvenance.UnexplainedRun> unexplained =
            p.gpusSeen() ? record(p, event, next, changes) : p.unexplained();
        // A finished step's effect is in this inventory; a running one may show later as well.
        Map<AspectKey, NodeProvenance.Touch> stillRunning = new TreeMap<>(p.touched());
        stillRunning.values().removeIf(touch -> !touch.running());
        yield new NodeProvenance(
            next, p.driverSeen(), true, p.acceptedGeneration(), stillRunning, unexplained);
      }
      // What it says of the changes before it in its run (fold()), and so of the runs they end.
      case NodeBooted _ -> booted(p, event.epoch());
      case SpecAccepted accepted -> accepted(p, accepted.generation());
      case SpecApplied done -> accepted(p, done.generation());
      case StepStarted started -> touched(p, started.generation(), started.step(), true);
      case StepSucceeded done -> touched(p, done.generation(), done.step(), false);
      case StepFailed failed -> touched(p, failed.generation(), failed.step(), false);
      // concerns() lets no other event through. Listed, not defaulted, so that a new event type
      // makes this switch fail to compile.
      case Heartbeat _,
          AgentStopping _,
          EventsDropped _,
          GateHeld _,
          GateReleased _,
          SpecRejected _ ->
          p;
    };
  }

  /**
   * Adds the changes from the node's last observation to {@code next} and returns the unexplained
   * runs they leave: a change a step made ends its aspect's run, any other extends it (or starts
   * one). Health is no desired state, so no drift, and has no run.
   */
  private static Map<AspectKey, NodeProvenance.UnexplainedRun> record(
      NodeProvenance p, Envelope<NodeEvent> event, Observation next, List<ObservedChange> changes) {
    Map<AspectKey, NodeProvenance.UnexplainedRun> unexplained = new TreeMap<>(p.unexplained());
    for (Observation.Difference difference : next.since(p.observation())) {
      // A registration speaks for the driver only, an inventory for the GPUs only.
      boolean driver = difference.key().aspect() == Aspect.DRIVER;
      if (driver != (event.data() instanceof NodeRegistered)) {
        continue;
      }
      NodeProvenance.Touch touch = p.touched().get(difference.key());
      ObservedChange change =
          new ObservedChange(
              event.subject(),
              event.epoch(),
              event.seq(),
              event.time(),
              difference.key(),
              difference.before(),
              difference.after(),
              touch == null ? null : touch.generation(),
              p.acceptedGeneration(),
              null);
      changes.add(change);
      if (change.stepGeneration() != null) {
        unexplained.remove(change.key());
      } else if (change.key().aspect() != Aspect.HEALTH) {
        unexplained.merge(
            change.key(),
            NodeProvenance.UnexplainedRun.of(change),
            (run, ignored) -> run.then(change));
      }
    }
    return unexplained;
  }

  /**
   * A NodeBooted marks the unexplained changes of its epoch as the boot's (fold()): a run whose
   * last change is of that epoch now ends in an explained change, and is over. Not the driver's: a
   * boot never asks for a driver ({@link ChangeAttribution}).
   */
  private static NodeProvenance booted(NodeProvenance p, long epoch) {
    Map<AspectKey, NodeProvenance.UnexplainedRun> unexplained = new TreeMap<>(p.unexplained());
    unexplained
        .entrySet()
        .removeIf(e -> e.getKey().aspect() != Aspect.DRIVER && e.getValue().lastEpoch() == epoch);
    return unexplained.equals(p.unexplained())
        ? p
        : new NodeProvenance(
            p.observation(),
            p.driverSeen(),
            p.gpusSeen(),
            p.acceptedGeneration(),
            p.touched(),
            unexplained);
  }

  private static NodeProvenance accepted(NodeProvenance p, long generation) {
    return generation <= p.acceptedGeneration()
        ? p
        : new NodeProvenance(
            p.observation(),
            p.driverSeen(),
            p.gpusSeen(),
            generation,
            p.touched(),
            p.unexplained());
  }

  private static NodeProvenance touched(
      NodeProvenance p, long generation, PlannedStep step, boolean running) {
    if (step.gpu() == null) {
      return accepted(p, generation);
    }
    Map<AspectKey, NodeProvenance.Touch> touched = new TreeMap<>(p.touched());
    for (Aspect aspect : Aspect.values()) {
      if (aspect.changedBy(step.kind())) {
        touched.put(
            new AspectKey(aspect, step.gpu()), new NodeProvenance.Touch(generation, running));
      }
    }
    return new NodeProvenance(
        p.observation(),
        p.driverSeen(),
        p.gpusSeen(),
        Math.max(generation, p.acceptedGeneration()),
        touched,
        p.unexplained());
  }
}
