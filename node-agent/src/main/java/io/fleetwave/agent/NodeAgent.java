package io.fleetwave.agent;

import io.fleetwave.agent.desired.AgentHaltedException;
import io.fleetwave.agent.desired.AgentPort;
import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.MemoryOutbox;
import io.fleetwave.agent.publish.NodeEventStream;
import io.fleetwave.agent.publish.OrderedDelivery;
import io.fleetwave.agent.publish.Outbox;
import io.fleetwave.events.node.AgentStopping;
import io.fleetwave.events.node.Gpu;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.Heartbeat;
import io.fleetwave.events.node.NodeEvent;
import io.fleetwave.events.node.NodeRegistered;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * One run of the agent of one node, over any {@link GpuBackend}: NodeRegistered and
 * GpuInventoryReported at start, GpuInventoryReported again whenever the inventory changes, a
 * Heartbeat on an interval, AgentStopping on an orderly stop. A run has one epoch; a new run (after
 * a crash or restart) is a new {@code NodeAgent} with a larger epoch.
 *
 * <p>GPUs not ready: a run may start before the node's driver is there. It then registers (the
 * facts say why there is no driver version) and heartbeats, publishes no inventory, and takes the
 * GPUs up with {@link #gpusReady} once a backend could be opened.
 *
 * <p>It owns no thread: its work runs on a scheduler shared by many agents, so one JVM can carry
 * thousands of simulated nodes. Inventory reads go to a separate executor where the backend may
 * block (NVML): the heartbeat never waits for the GPUs.
 */
public final class NodeAgent implements AgentPort {
  private static final System.Logger LOG = System.getLogger(NodeAgent.class.getName());

  private volatile NodeRegistered facts;
  private volatile GpuBackend backend; // null while the GPUs are not ready (no driver yet)
  private final Supplier<String> bootId;
  private final ScheduledExecutorService scheduler;
  private final Executor gpuReads;
  private final AgentSettings settings;
  private final OrderedDelivery delivery;
  private final NodeEventStream events;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean inventoryCheckQueued = new AtomicBoolean();
  private final Object inventoryLock = new Object();
  private volatile List<Gpu> lastInventory;
  private long startedMillis;
  private volatile Instant lastTick;
  private ScheduledFuture<?> heartbeats;

  /**
   * How a run publishes: through the shared publisher, from its own outbox (a previous run's spool
   * is delivered first), numbered above the previous run.
   *
   * @param outbox where undelivered events wait: a {@link io.fleetwave.agent.publish.SpoolFile} on
   *     writable hosts, a {@link MemoryOutbox} elsewhere
   * @param previousEpoch the epoch of this node's previous run, or 0; the new one is larger
   * @param epochChosen told the new epoch before anything is published (to persist it)
   */
  public record Publishing(
      EventPublisher publisher, Outbox outbox, long previousEpoch, LongConsumer epochChosen) {
    public Publishing {
      Objects.requireNonNull(publisher, "publisher");
      Objects.requireNonNull(outbox, "outbox");
      Objects.requireNonNull(epochChosen, "epochChosen");
    }

    /** A memory queue of the default bound, nothing persisted. */
    public static Publishing inMemory(EventPublisher publisher, long previousEpoch) {
      return new Publishing(
          publisher, new MemoryOutbox(MemoryOutbox.DEFAULT_LIMIT_BYTES), previousEpoch, e -> {});
    }
  }

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
    this(
        facts, backend, bootId, scheduler, settings, Publishing.inMemory(publisher, previousEpoch));
  }

  /** A run whose GPUs are ready, whose inventory reads may run on the heartbeat's scheduler. */
  public NodeAgent(
      NodeRegistered facts,
      GpuBackend backend,
      Supplier<String> bootId,
      ScheduledExecutorService scheduler,
      AgentSettings settings,
      Publishing publishing) {
    this(
        facts,
        Optional.of(Objects.requireNonNull(backend, "backend")),
        bootId,
        scheduler,
        scheduler,
        settings,
        publishing);
  }

  /**
   * @param facts the host facts this node registers with; without a backend, they say why the GPUs
   *     are not ready
   * @param backend the node's GPUs, or empty while they are not ready (see {@link #gpusReady})
   * @param gpuReads where inventory reads run: not the heartbeat's scheduler when the backend can
   *     block
   * @param publishing how this run's events are numbered, kept and delivered
   */
  public NodeAgent(
      NodeRegistered facts,
      Optional<GpuBackend> backend,
      Supplier<String> bootId,
      ScheduledExecutorService scheduler,
      Executor gpuReads,
      AgentSettings settings,
      Publishing publishing) {
    this.facts = Objects.requireNonNull(facts, "facts");
    this.backend = backend.orElse(null);
    this.bootId = Objects.requireNonNull(bootId, "bootId");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.gpuReads = Objects.requireNonNull(gpuReads, "gpuReads");
    this.settings = Objects.requireNonNull(settings, "settings");
    // Above the previous run and above whatever a previous run left in the spool.
    long previous = Math.max(publishing.previousEpoch(), publishing.outbox().newestEpoch());
    long epoch = NodeEventStream.nextEpoch(previous, settings.clock());
    publishing.epochChosen().accept(epoch);
    EventPublisher publisher = publishing.publisher();
    this.delivery =
        new OrderedDelivery(
            facts.hostname(),
            publishing.outbox(),
            publisher,
            publisher.deliveryExecutor(),
            OrderedDelivery.Settings.DEFAULT,
            settings.clock());
    this.events =
        new NodeEventStream(
            facts.hostname(), settings.source(), epoch, delivery, settings.clock(), this::restated);
  }

  @Override
  public String nodeName() {
    return facts.hostname();
  }

  @Override
  public long epoch() {
    return events.epoch();
  }

  @Override
  public boolean running() {
    return running.get();
  }

  /** Where this run's events are delivered from, read by the agent's metrics. */
  public OrderedDelivery delivery() {
    return delivery;
  }

  /**
   * When the heartbeat loop last ran (its start before the first tick): the agent's liveness. Set
   * as the tick begins, whatever the send does: a Kafka outage does not stop the loop.
   */
  public Instant lastHeartbeat() {
    Instant tick = lastTick;
    if (tick == null) {
      throw new IllegalStateException("agent of " + nodeName() + " has not started");
    }
    return tick;
  }

  /** Whether the GPUs are up (a backend is open); false while the driver is awaited. */
  public boolean gpusUp() {
    return backend != null;
  }

  /**
   * The driver is there now: registers again with the facts of the opened backend (driver root,
   * driver version) and publishes the inventory. Once per run.
   */
  public void gpusReady(NodeRegistered opened, GpuBackend gpus) {
    Objects.requireNonNull(opened, "opened");
    Objects.requireNonNull(gpus, "gpus");
    if (!running.get()) {
      throw new AgentHaltedException(nodeName(), epoch());
    }
    synchronized (inventoryLock) {
      if (backend != null) {
        throw new IllegalStateException("GPUs of " + nodeName() + " are already up");
      }
      facts = opened;
      backend = gpus;
      events.send(opened);
    }
    publishInventory(true);
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
    lastTick = Instant.ofEpochMilli(startedMillis);
    delivery.start();
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
  @Override
  public void publish(NodeEvent event) {
    if (!running.get()) {
      throw new AgentHaltedException(nodeName(), epoch());
    }
    events.send(event);
  }

  /** Publishes the inventory now if it changed since the last report (after a GPU step). */
  @Override
  public void reportInventory() {
    publishInventory(false);
  }

  /** Publishes the node's facts and its inventory again (the Reprobe command). */
  @Override
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
      gpuReads.execute(
          () -> {
            inventoryCheckQueued.set(false);
            guarded("inventory check", () -> publishInventory(false));
          });
    }
  }

  /**
   * Orderly stop: no more heartbeats, then AgentStopping; the future completes when it is acked,
   * after everything before it, and the outbox is released then. A caller that stops waiting calls
   * {@link #release()}: a spool keeps what is left for the next run.
   */
  public CompletableFuture<Void> stop(String reason) {
    if (!halt()) {
      return CompletableFuture.completedFuture(null);
    }
    return events
        .publish(new AgentStopping(reason))
        .whenComplete((metadata, error) -> release())
        .thenApply(metadata -> null);
  }

  /** Dies without a word, as a killed process would: nothing more is sent, the spool stays. */
  public void crash() {
    halt();
    release();
  }

  /** Stops delivering and releases the outbox (idempotent); a spool keeps what is undelivered. */
  public void release() {
    delivery.close();
  }

  /** Events this run handed over that the broker has not acknowledged yet. */
  public int undelivered() {
    return events.depth();
  }

  /** The node's state restated after a declared gap; no lock taken (see NodeEventStream). */
  private List<NodeEvent> restated() {
    List<Gpu> inventory = lastInventory;
    return inventory == null ? List.of(facts) : List.of(facts, new GpuInventoryReported(inventory));
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
    lastTick = settings.clock().instant();
    guarded("heartbeat", () -> events.send(new Heartbeat(bootId.get(), uptimeSeconds())));
    // Real backends have no change callback: the heartbeat doubles as the inventory poll, which
    // runs elsewhere so that a GPU call that blocks never delays a heartbeat.
    guarded("inventory poll", this::inventoryMayHaveChanged);
  }

  private long uptimeSeconds() {
    return Math.max(0, (settings.clock().millis() - startedMillis) / 1000);
  }

  private void publishInventory(boolean always) {
    synchronized (inventoryLock) {
      if (!running.get() || backend == null) {
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
