package io.fleetwave.simulator;

import io.fleetwave.agent.AgentSettings;
import io.fleetwave.agent.NodeAgent;
import io.fleetwave.agent.desired.BootRecord;
import io.fleetwave.agent.desired.ReplayFloor;
import io.fleetwave.agent.desired.SpecConverger;
import io.fleetwave.agent.gate.AgentGate;
import io.fleetwave.agent.gate.GateFile;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.MemoryOutbox;
import io.fleetwave.agent.publish.Outbox;
import io.fleetwave.agent.publish.SpoolFile;
import io.fleetwave.agent.reconcile.DevicePluginGate;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.simulator.fleet.NodeSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One simulated node: its GPUs (a {@link SimulatedGpuBackend} tests and the demo may disturb) and
 * the current run of its agent, which can crash, restart (new, larger epoch) or go through a
 * reboot.
 *
 * <p>Where the fleet follows desired specs, every agent run also gets a {@link SpecConverger}: it
 * holds the gate after a boot and converges to the node's spec from the compacted topic. What a
 * real host keeps across agent runs is kept here: the gate file, the last boot id and the accepted
 * generations in the node's state directory on writable hosts; on read-only hosts (Talos, COS) no
 * file, and the last boot id in memory, standing in for the boot the event log shows.
 */
public final class SimulatedNode {
  private final NodeSpec spec;

  /** Default simulated time from a driver change handed to the host to its reboot. */
  public static final Duration DEFAULT_DRIVER_APPLY_DELAY = Duration.ofMillis(300);

  private volatile NodeRegistered facts;
  private final SimulatedGpuBackend gpus;
  private final EventPublisher publisher;
  private final ScheduledExecutorService scheduler;
  private final AgentSettings settings;
  private final SimulatedFleet.Following following;
  private final Optional<Path> stateDirectory;
  private final BootRecord boots;
  private final ReplayFloor floor;
  private NodeAgent agent;
  private SpecConverger converger;
  private String installingDriver;
  private CompletableFuture<Void> driverInstalled;

  SimulatedNode(
      NodeSpec spec,
      EventPublisher publisher,
      ScheduledExecutorService scheduler,
      AgentSettings settings) {
    this(spec, publisher, scheduler, settings, null);
  }

  SimulatedNode(
      NodeSpec spec,
      EventPublisher publisher,
      ScheduledExecutorService scheduler,
      AgentSettings settings,
      SimulatedFleet.Following following) {
    this.following = following;
    this.stateDirectory =
        following == null || following.stateRoot() == null || spec.os().readOnlyRoot()
            ? Optional.empty()
            : Optional.of(following.stateRoot().resolve(spec.name()));
    this.boots = stateDirectory.map(BootRecord::inDirectory).orElseGet(BootRecord::inMemory);
    // Read-only hosts keep nothing: they learn the newest spec from the topic, as real ones do.
    this.floor = stateDirectory.map(ReplayFloor::inDirectory).orElseGet(ReplayFloor::none);
    this.spec = spec;
    this.facts = SimulatedHostFacts.of(spec);
    this.gpus =
        new SimulatedGpuBackend(
            spec.name(),
            spec.group().driverVersion(),
            spec.gpuModels(),
            spec.os().hostKind() == HostKind.VGPU_HOST);
    this.publisher = publisher;
    this.scheduler = scheduler;
    this.settings = settings;
    gpus.onChange(this::gpusChanged);
  }

  public String name() {
    return spec.name();
  }

  public NodeSpec spec() {
    return spec;
  }

  /** The host facts this node registers with (its driver version changes with a driver change). */
  public NodeRegistered facts() {
    return facts;
  }

  /** The node's GPUs; changes made here are republished by a running agent. */
  public SimulatedGpuBackend gpus() {
    return gpus;
  }

  /** The epoch of the current (or last) agent run. */
  public synchronized long epoch() {
    return agent == null ? 0 : agent.epoch();
  }

  public synchronized boolean agentRunning() {
    return agent != null && agent.running();
  }

  /** Starts the agent if it is not running: a new run with a new, larger epoch. */
  public synchronized void restart() {
    if (agentRunning()) {
      return;
    }
    long previousEpoch = epoch();
    if (agent != null) {
      agent.release(); // a stopped run whose AgentStopping was never acknowledged lets go of the
      // spool
    }
    agent =
        new NodeAgent(facts, gpus, gpus::bootId, scheduler, settings, publishing(previousEpoch));
    agent.start();
    if (following != null) {
      converger =
          new SpecConverger(
              agent,
              gpus,
              gate(),
              boots,
              floor,
              gpus::bootId,
              following.spec(),
              following.workers(),
              scheduler);
      converger.start();
      following.follower().follow(converger);
    }
  }

  /**
   * Where this run's undelivered events wait: the spool file in the state directory of a writable
   * host (what a crashed run left there is delivered first), a memory queue elsewhere (lost with
   * the run, as on a real read-only host). The previous epoch is the one this node remembers: the
   * simulated host outlives its agent runs.
   */
  private NodeAgent.Publishing publishing(long previousEpoch) {
    Outbox outbox =
        stateDirectory
            .<Outbox>map(dir -> SpoolFile.open(dir, SpoolFile.DEFAULT_LIMIT_BYTES))
            .orElseGet(() -> new MemoryOutbox(MemoryOutbox.DEFAULT_LIMIT_BYTES));
    return new NodeAgent.Publishing(publisher, outbox, previousEpoch, epoch -> {});
  }

  /** The writable state directory of this node (gate file, last boot id), if it has one. */
  public Optional<Path> stateDirectory() {
    return stateDirectory;
  }

  private DevicePluginGate gate() {
    List<DevicePluginGate> outlets =
        stateDirectory.<DevicePluginGate>map(dir -> new GateFile(dir, gpus::bootId)).stream()
            .toList();
    return new AgentGate(outlets);
  }

  /** Kills the agent without AgentStopping, as a crashed process. */
  public synchronized void crash() {
    if (agent != null) {
      agent.crash();
    }
    stopFollowing();
  }

  private void stopFollowing() {
    if (converger != null) {
      following.follower().unfollow(converger);
      converger.stop();
      converger = null;
    }
  }

  /**
   * Reboots the host: the agent dies, the GPUs lose what a reboot loses, the agent starts again.
   */
  public synchronized void reboot() {
    crash();
    gpus.reboot();
    restart();
  }

  /** As {@link #installDriver(String, Duration)} after {@link #DEFAULT_DRIVER_APPLY_DELAY}. */
  public CompletableFuture<Void> installDriver(String version) {
    return installDriver(version, DEFAULT_DRIVER_APPLY_DELAY);
  }

  /**
   * Installs a driver version as the host's provider would (host package, driver container, or an
   * OS image carrying the driver on Talos and COS): after {@code applyDelay} the host reboots into
   * it: the agent dies, the GPUs lose what a reboot loses, and a new agent run (larger epoch)
   * registers the new driver version. Returns at once; the result completes after that reboot.
   *
   * <p>Idempotent: asking again for the version being installed returns the same result, and asking
   * for the version the node already runs changes nothing.
   *
   * @throws IllegalStateException while another version is being installed, or when the fleet is
   *     closed
   */
  // The scheduled task's own future is not kept: applyDriver completes `installed` either way.
  @SuppressWarnings("FutureReturnValueIgnored")
  public synchronized CompletableFuture<Void> installDriver(String version, Duration applyDelay) {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(applyDelay, "applyDelay");
    if (driverInstalled != null && !driverInstalled.isDone()) {
      if (installingDriver.equals(version)) {
        return driverInstalled;
      }
      throw new IllegalStateException(
          "node "
              + name()
              + " is installing driver "
              + installingDriver
              + "; driver "
              + version
              + " must wait until it has rebooted");
    }
    if (version.equals(gpus.driverVersion())) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> installed = new CompletableFuture<>();
    try {
      scheduler.schedule(
          () -> applyDriver(version, installed), applyDelay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      throw new IllegalStateException(
          "node " + name() + " cannot install driver " + version + ": the fleet is closed", e);
    }
    installingDriver = version;
    driverInstalled = installed;
    return installed;
  }

  private void applyDriver(String version, CompletableFuture<Void> installed) {
    try {
      synchronized (this) {
        crash();
        gpus.installDriver(version);
        facts =
            SimulatedHostFacts.of(spec, version, "driver " + version + " installed by a rollout");
        gpus.reboot();
        restart();
      }
      installed.complete(null);
    } catch (RuntimeException e) {
      installed.completeExceptionally(e);
    }
  }

  /** Stops the agent in order; completes when AgentStopping is acknowledged. */
  public synchronized CompletableFuture<Void> stop(String reason) {
    stopFollowing();
    return agent == null ? CompletableFuture.completedFuture(null) : agent.stop(reason);
  }

  private void gpusChanged() {
    NodeAgent current;
    synchronized (this) {
      current = agent;
    }
    if (current != null) {
      current.inventoryMayHaveChanged();
    }
  }
}
