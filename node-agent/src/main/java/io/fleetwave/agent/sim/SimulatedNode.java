package io.fleetwave.agent.sim;

import io.fleetwave.agent.AgentSettings;
import io.fleetwave.agent.NodeAgent;
import io.fleetwave.agent.fleet.NodeSpec;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.events.node.HostKind;
import io.fleetwave.events.node.NodeRegistered;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One simulated node: its GPUs (a {@link SimulatedGpuBackend} tests and the demo may disturb) and
 * the current run of its agent, which can crash, restart (new, larger epoch) or go through a
 * reboot.
 */
public final class SimulatedNode {
  private final NodeSpec spec;
  private final NodeRegistered facts;
  private final SimulatedGpuBackend gpus;
  private final EventPublisher publisher;
  private final ScheduledExecutorService scheduler;
  private final AgentSettings settings;
  private NodeAgent agent;

  SimulatedNode(
      NodeSpec spec,
      EventPublisher publisher,
      ScheduledExecutorService scheduler,
      AgentSettings settings) {
    this.spec = spec;
    this.facts = SimulatedHostFacts.of(spec);
    this.gpus =
        new SimulatedGpuBackend(
            spec.name(),
            spec.group().driverVersion(),
            spec.gpuModels(),
            spec.os().kind() == HostKind.VGPU_HOST);
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

  /** The host facts this node registers with. */
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
    agent = new NodeAgent(facts, gpus, gpus::bootId, publisher, scheduler, settings, epoch());
    agent.start();
  }

  /** Kills the agent without AgentStopping, as a crashed process. */
  public synchronized void crash() {
    if (agent != null) {
      agent.crash();
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

  /** Stops the agent in order; completes when AgentStopping is acknowledged. */
  public synchronized CompletableFuture<Void> stop(String reason) {
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
