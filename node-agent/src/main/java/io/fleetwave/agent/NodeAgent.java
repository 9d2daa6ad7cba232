package io.fleetwave.agent;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.NodeEventStream;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One run of the agent of one node, over any {@link GpuBackend}: NodeRegistered and
 * GpuInventoryReported at start, GpuInventoryReported again whenever the inventory changes, a
 * Heartbeat on an interval, AgentStopping on an orderly stop. A run has one epoch; a new run (after
 * a crash or restart) is a new {@code NodeAgent} with a larger epoch.
 *
 * <p>It owns no thread: its work runs on a scheduler shared by many agents, so one JVM can carry
 * thousands of simulated nodes.
 */
public final class NodeAgent {
  private static final System.Logger LOG = System.getLogger(NodeAgent.class.getName());

  private final NodeRegistered facts;
  private final GpuBackend backend;
  private final Supplier<String> bootId;
  private final ScheduledExecutorService scheduler;
  private final AgentSettings settings;
  private final NodeEventStream events;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean inventoryCheckQueued = new AtomicBoolean();
  private final Object inventoryLock = new Object();
  private List<Gpu> lastInventory;
  private long startedMillis;
  private ScheduledFuture<?> heartbeats;

  /**
   * @param facts the host facts this node registers with (hostname = node name = record key)
   * @param bootId the host's current boot id, read at every heartbeat
   * @param previousEpoch the epoch of this node's previous run, or 0; the new one is larger
   */
  public NodeAgent(
      NodeRegistered facts,
      GpuBackend backend,
      Supplier<String> bootId,
      EventPublisher publisher,
      ScheduledExecutorService scheduler,
      AgentSettings settings,
      long previousEpoch) {
    this.facts = Objects.requireNonNull(facts, "facts");
    this.backend = Objects.requireNonNull(backend, "backend");
    this.bootId = Objects.requireNonNull(bootId, "bootId");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.events =
        new NodeEventStream(
            facts.hostname(),
            settings.source(),
            NodeEventStream.nextEpoch(previousEpoch, settings.clock()),
            publisher,
            settings.clock());
  }

  public String nodeName() {
    return facts.hostname();
  }

  public long epoch() {
    return events.epoch();
  }

  public boolean running() {
    return running.get();
  }

  /**
   * Publishes the node's facts and inventory and schedules heartbeats. The first heartbeat comes
   * after a delay spread over one interval, so thousands of agents do not beat in step.
   */
  public void start() {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("agent of " + nodeName() + " already started");
    }
    startedMillis = settings.clock().millis();
    events.send(facts);
    publishInventory(true);
    long interval = settings.heartbeatInterval().toMillis();
    long spread = Math.floorMod(nodeName().hashCode(), interval);
    heartbeats = scheduler.scheduleAtFixedRate(this::tick, spread, interval, TimeUnit.MILLISECONDS);
  }

  /**
   * Publishes one event of this run (reconcile progress) in this run's (epoch, seq) order.
   *
   * @throws AgentHaltedException when the run has stopped: a dead agent says nothing more
   */
  public void publish(NodeEvent event) {
    if (!running.get()) {
      throw new AgentHaltedException(nodeName(), epoch());
    }
    events.send(event);
  }

  /** Publishes the inventory now if it changed since the last report (after a GPU step). */
  public void reportInventory() {
    publishInventory(false);
  }

  /** Publishes the node's facts and its inventory again (the Reprobe command). */
  public void reprobe() {
    if (!running.get()) {
      throw new AgentHaltedException(nodeName(), epoch());
    }
    synchronized (inventoryLock) {
      events.send(facts);
    }
    publishInventory(true);
  }

  /** Asks for an inventory check soon (the simulator calls this on every change). */
  public void inventoryMayHaveChanged() {
    if (running.get() && inventoryCheckQueued.compareAndSet(false, true)) {
      scheduler.execute(
          () -> {
            inventoryCheckQueued.set(false);
            guarded("inventory check", () -> publishInventory(false));
          });
    }
  }

  /**
   * Orderly stop: no more heartbeats, then AgentStopping; the future completes when it is acked.
   */
  public CompletableFuture<Void> stop(String reason) {
    if (!halt()) {
      return CompletableFuture.completedFuture(null);
    }
    return events.publish(new AgentStopping(reason)).thenApply(metadata -> null);
  }

  /** Dies without a word, as a killed process would. */
  public void crash() {
    halt();
  }

  private boolean halt() {
    if (!running.compareAndSet(true, false)) {
      return false;
    }
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
    return true;
  }

  private void tick() {
    guarded(
        "heartbeat",
        () -> {
          events.send(new Heartbeat(bootId.get(), uptimeSeconds()));
          // Real backends have no change callback: the heartbeat doubles as the inventory poll.
          publishInventory(false);
        });
  }

  private long uptimeSeconds() {
    return Math.max(0, (settings.clock().millis() - startedMillis) / 1000);
  }

  private void publishInventory(boolean always) {
    synchronized (inventoryLock) {
      if (!running.get()) {
        return;
      }
      List<Gpu> inventory = backend.inventory();
      if (always || !inventory.equals(lastInventory)) {
        lastInventory = inventory;
        events.send(new GpuInventoryReported(inventory));
      }
    }
  }

  /** A scheduled task that throws is never run again; log and carry on instead. */
  private void guarded(String what, Runnable task) {
    if (!running.get()) {
      return;
    }
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "agent of " + nodeName() + ": " + what + " failed", e);
    }
  }
}
