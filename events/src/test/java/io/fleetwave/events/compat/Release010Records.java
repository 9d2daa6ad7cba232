package io.fleetwave.events.compat;

import io.fleetwave.events.Envelope;
import io.fleetwave.events.EventTypes;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.DriverProvider;
import io.fleetwave.events.node.EventsDropped;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuHealth;
import io.fleetwave.events.node.GpuInstance;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.MigMode;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.events.payload.FleetEvent;
import io.fleetwave.events.rollout.DriverInstallRequested;
import io.fleetwave.events.rollout.FailureCause;
import io.fleetwave.events.rollout.NodeFailed;
import io.fleetwave.events.rollout.NodeKeptOutOfService;
import io.fleetwave.events.rollout.NodeReturnedToService;
import io.fleetwave.events.rollout.NodeStarted;
import io.fleetwave.events.rollout.NodeSucceeded;
import io.fleetwave.events.rollout.NodeTakenOutOfService;
import io.fleetwave.events.rollout.OsUpgradeRequested;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.rollout.RestorePoint;
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
import io.fleetwave.events.spec.GpuSpec;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The records release 0.1.0 wrote: one of every node event and rollout event type (and every
 * failure cause of node-failed), as values. {@link CompatFixtures} wrote them with the 0.1.0 codec
 * into {@code src/test/resources/compat/0.1.0/}; {@link Release010CompatTest} decodes those files
 * with today's code and requires exactly these values back.
 *
 * <p>Frozen with the release: a change here must mean that today's code reads a 0.1.0 record
 * differently on purpose (a new field's default, an upcast), never that the fixtures were written
 * again.
 */
public final class Release010Records {
  static final String RELEASE = "0.1.0";
  static final String NODE = "h200-node-0";
  static final String ROLLOUT = "3f1c2a5e-rollout";
  private static final URI AGENT = URI.create("fleetwave:agent/" + NODE);
  private static final URI ENGINE = URI.create("fleetwave:rollout-engine");
  private static final Instant TIME = Instant.parse("2026-12-01T10:15:30.123456Z");
  private static final long EPOCH = 1_764_584_130_123L;

  /** One record: the file it is kept in, its topic and key, and the envelope it carries. */
  record Sample(String file, String topic, String key, Envelope<FleetEvent> envelope) {
    boolean signed() {
      return topic.equals(Topics.NODE_EVENTS);
    }
  }

  private Release010Records() {}

  static List<Sample> all() {
    List<Sample> samples = new ArrayList<>();
    List<FleetEvent> node = nodeEvents();
    for (int i = 0; i < node.size(); i++) {
      samples.add(sample(Topics.NODE_EVENTS, NODE, AGENT, i, node.get(i), ""));
    }
    List<RolloutEvent> rollout = rolloutEvents();
    for (int i = 0; i < rollout.size(); i++) {
      RolloutEvent event = rollout.get(i);
      String variant =
          event instanceof NodeFailed failed
              ? "." + failed.cause().getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT)
              : "";
      samples.add(sample(Topics.ROLLOUT_EVENTS, ROLLOUT, ENGINE, i, event, variant));
    }
    return samples;
  }

  private static Sample sample(
      String topic, String key, URI source, long seq, FleetEvent event, String variant) {
    String type = EventTypes.typeOf(event);
    String name = type.substring("io.fleetwave.".length(), type.lastIndexOf(".v"));
    Envelope<FleetEvent> envelope =
        new Envelope<>(
            "0.1.0-" + name + variant, source, type, key, TIME.plusSeconds(seq), EPOCH, seq, event);
    return new Sample(name + variant + ".json", topic, key, envelope);
  }

  private static List<FleetEvent> nodeEvents() {
    PlannedStep reset = new PlannedStep(3, StepKind.RESET_GPU, 0, "reset GPU 0", 120_000);
    return List.of(
        new NodeRegistered(
            NODE,
            HostKind.UBUNTU,
            "ubuntu",
            "24.04",
            "6.8.0-90-generic",
            false,
            true,
            "/",
            "/",
            DriverProvider.HOST_PACKAGE,
            "580.95.05",
            "zone-a",
            Map.of("pool", "training"),
            Map.of("systemd", "/run/systemd/system exists")),
        new GpuInventoryReported(
            List.of(
                new Gpu(
                    0,
                    "GPU-0",
                    "0000:10:00.0",
                    "0x233510DE",
                    "NVIDIA H200",
                    143771,
                    true,
                    MigMode.ENABLED,
                    MigMode.ENABLED,
                    List.of(new GpuInstance("3g.71gb", 0, 4), new GpuInstance("3g.71gb", 4, 4)),
                    0,
                    0,
                    GpuHealth.HEALTHY))),
        new Heartbeat("boot-2", 3600),
        new AgentStopping("SIGTERM"),
        new NodeBooted("boot-2", "boot-1"),
        new SpecAccepted(4, List.of(reset)),
        new SpecRejected(5, "cmd-5", "unplannable", "3 x 3g.71gb do not fit"),
        new StepStarted(4, reset),
        new StepSucceeded(4, reset, 2300),
        new StepFailed(4, reset, "in use", "pid 7 (python)", 900),
        new SpecApplied(4),
        new GateHeld(4, "waiting for the rollout to release the node"),
        new GateReleased(4),
        new EventsDropped(10, 19, 10, "spool full"));
  }

  /** The rollout events of the samples; the rollout codec test round-trips them too. */
  public static List<RolloutEvent> rolloutEvents() {
    RestorePoint restore =
        new RestorePoint("570.86.15", List.of(new GpuSpec(0, true, Map.of("1g.10gb", 7), 0, null)));
    return List.of(
        new RolloutCreated(
            "h200-balanced",
            List.of(List.of("n1"), List.of("n2", "n3")),
            EventCodec.mapper().createObjectNode().put("name", "h200-balanced"),
            EventCodec.mapper().createObjectNode().put("plannedNodes", 3),
            "alice"),
        new WaveStarted(2),
        new NodeStarted(1, "n1", Phase.FORWARD, 4, restore),
        new NodeSucceeded(1, "n1", Phase.FORWARD, 1200),
        new NodeFailed(
            2,
            "n2",
            Phase.FORWARD,
            new FailureCause.TimedOut(600, "spec generation 4 not applied (applied: 3)"),
            600_000),
        new NodeFailed(
            1,
            "n1",
            Phase.FORWARD,
            new FailureCause.AgentRefused(4, "unplannable", "3 x 3g.40gb do not fit"),
            30),
        new NodeFailed(
            1, "n1", Phase.ROLLBACK, new FailureCause.StepFailed("gpu-reset", "busy", "pid 7"), 9),
        new NodeFailed(
            1, "n1", Phase.FORWARD, new FailureCause.UnhealthyAfterSoak(60, "GPU 0 failed"), 9),
        new NodeFailed(1, "n1", Phase.FORWARD, new FailureCause.HandOverFailed("no spec"), 9),
        new NodeFailed(1, "n1", Phase.FORWARD, new FailureCause.NotTakenOutOfService("pdb"), 9),
        new NodeFailed(1, "n1", Phase.FORWARD, new FailureCause.Unclassified("old words"), 9),
        new WaveCompleted(1, 1, 0),
        new WavePromoted(1, "alice"),
        new RolloutPaused("wave 2: 1 of 2 nodes failed (allowed 0): n2", RolloutEvent.SYSTEM),
        new RolloutResumed("after the fix", "alice"),
        new RolloutAborted("operator", "bob"),
        new RollbackStarted("total failures 3 > 2", RolloutEvent.SYSTEM),
        new RolloutCompleted(true, 3, 0),
        new DriverInstallRequested(
            "n1", "r:n1:4", "580.95.05", "container-image", "driver container x"),
        new OsUpgradeRequested("n9", "r:n9:2", "580.95.05", "talos", "1.11.2"),
        new NodeTakenOutOfService(
            "n1",
            Phase.FORWARD,
            true,
            false,
            List.of("gpu-jobs/train-7"),
            List.of("device-plugin", "dcgm-exporter"),
            "all-disabled",
            null,
            2300),
        new NodeReturnedToService("n1", Phase.FORWARD, true, List.of("device-plugin"), null),
        new NodeKeptOutOfService(
            "n2", Phase.FORWARD, List.of("dcgm"), "the node failed: stays cordoned"),
        new RolloutFailed("fleet.rollout-events", 2, 17, "does not decode: not JSON"),
        new RolloutCreatedInChunks("big", "alice", 3, "ab".repeat(32)),
        new RolloutPlanChunk(0, "{\"name\":\"big\","));
  }
}
