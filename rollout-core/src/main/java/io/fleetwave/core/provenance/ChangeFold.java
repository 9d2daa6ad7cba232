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
        if (p.driverSeen()) {
          record(p, event, next, changes);
        }
        yield new NodeProvenance(next, true, p.gpusSeen(), p.acceptedGeneration(), p.touched());
      }
      case GpuInventoryReported inventory -> {
        Observation next = p.observation().withGpus(inventory.gpus());
        if (p.gpusSeen()) {
          record(p, event, next, changes);
        }
        // A finished step's effect is in this inventory; a running one may show later as well.
        Map<AspectKey, NodeProvenance.Touch> stillRunning = new TreeMap<>(p.touched());
        stillRunning.values().removeIf(touch -> !touch.running());
        yield new NodeProvenance(next, p.driverSeen(), true, p.acceptedGeneration(), stillRunning);
      }
      // Only what it says of the changes before it in its run (fold()); nothing to keep.
      case NodeBooted _ -> p;
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

  private static void record(
      NodeProvenance p, Envelope<NodeEvent> event, Observation next, List<ObservedChange> changes) {
    for (Observation.Difference difference : next.since(p.observation())) {
      // A registration speaks for the driver only, an inventory for the GPUs only.
      boolean driver = difference.key().aspect() == Aspect.DRIVER;
      if (driver != (event.data() instanceof NodeRegistered)) {
        continue;
      }
      NodeProvenance.Touch touch = p.touched().get(difference.key());
      changes.add(
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
              null));
    }
  }

  private static NodeProvenance accepted(NodeProvenance p, long generation) {
    return generation <= p.acceptedGeneration()
        ? p
        : new NodeProvenance(
            p.observation(), p.driverSeen(), p.gpusSeen(), generation, p.touched());
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
        touched);
  }
}
