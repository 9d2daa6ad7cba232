package io.fleetwave.simulator;

import io.fleetwave.agent.AgentSettings;
import io.fleetwave.agent.desired.CommandFollower;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.agent.identity.BootstrapCredential;
import io.fleetwave.agent.identity.Enrolment;
import io.fleetwave.agent.identity.EnrolmentRefusedException;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.events.Topics;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.events.security.NodeEventSigner;
import io.fleetwave.simulator.fleet.FleetFile;
import io.fleetwave.simulator.fleet.NodeSpec;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the agents of every node of a fleet file in this JVM: one shared producer and one small
 * scheduler pool, no thread per node, so 10,000 nodes fit in one process.
 *
 * <p>With a {@link SpecFollowing} (the control plane's public key), every node also follows its
 * desired spec and commands: ONE {@link CommandFollower} (one consumer, one thread) reads both
 * topics for all nodes and dispatches by key; reconciles run on a small shared pool, one at a time
 * per node. Without one (the {@link #start(FleetFile, String, Duration)} overload) nothing is
 * followed, as before.
 *
 * <p>With a {@link FleetEnrolment}, every node is an enrolled agent: it makes its own key, enrolls
 * it through the control plane's enrolment API with a join token of its own, and the shared
 * publisher signs each of its events with it; its agent starts once it is enrolled ({@link
 * #enrolled()}). Nodes enroll in the background, a bounded number at once. A node enrolls once per
 * fleet: its key outlives its agent runs (crash, restart, reboot), as a writable host's key file
 * does. Without one, nodes publish unsigned, as an agent started without a control plane.
 */
public final class SimulatedFleet implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(SimulatedFleet.class.getName());

  // A fleet in one JVM (demo, tests, benchmarks) would log a line per event of each of its
  // thousands of nodes: those lines are for a real agent's own log. Held here: JUL keeps loggers
  // weakly, and a collected one would forget its level.
  @SuppressWarnings("UnusedVariable") // held, never read: see above
  private static final java.util.logging.Logger EVENT_LINES =
      quiet(io.fleetwave.agent.publish.EventLines.LOGGER);

  // The same for the line each node's enrolment logs.
  @SuppressWarnings("UnusedVariable") // held, never read: see above
  private static final java.util.logging.Logger ENROLMENT_LINES = quiet(Enrolment.class.getName());

  /**
   * @param bootstrapServers Kafka bootstrap servers
   * @param heartbeatInterval per-node heartbeat interval
   * @param topic where node events go
   * @param schedulerThreads threads shared by all agents
   * @param closeTimeout bound on close(): AgentStopping acks plus the producer flush
   * @param kafkaWait bound on waiting for the broker (at start, and per send for metadata/buffer)
   * @param deliveryTimeout bound on one event from send to acknowledgement (the agents' 30 s by
   *     default); past it the event is dropped, so a test that stops the broker for longer than
   *     this and expects every event sets it above the outage
   */
  public record Settings(
      String bootstrapServers,
      Duration heartbeatInterval,
      String topic,
      int schedulerThreads,
      Duration closeTimeout,
      Duration kafkaWait,
      Duration deliveryTimeout) {
    static final Duration AGENT_DELIVERY_TIMEOUT = Duration.ofSeconds(30);

    public Settings {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(closeTimeout, "closeTimeout");
      Objects.requireNonNull(kafkaWait, "kafkaWait");
      Objects.requireNonNull(deliveryTimeout, "deliveryTimeout");
      if (schedulerThreads < 1) {
        throw new IllegalArgumentException("schedulerThreads must be at least 1");
      }
    }

    /** With the agents' delivery timeout. */
    public Settings(
        String bootstrapServers,
        Duration heartbeatInterval,
        String topic,
        int schedulerThreads,
        Duration closeTimeout,
        Duration kafkaWait) {
      this(
          bootstrapServers,
          heartbeatInterval,
          topic,
          schedulerThreads,
          closeTimeout,
          kafkaWait,
          AGENT_DELIVERY_TIMEOUT);
    }

    public static Settings of(String bootstrapServers, Duration heartbeatInterval) {
      return new Settings(
          bootstrapServers,
          heartbeatInterval,
          Topics.NODE_EVENTS,
          Math.clamp(Runtime.getRuntime().availableProcessors(), 2, 4),
          Duration.ofSeconds(30),
          Duration.ofSeconds(10));
    }
  }

  private final Settings settings;
  private final EventPublisher publisher;
  private final ScheduledExecutorService scheduler;
  private final Map<String, SimulatedNode> nodes;
  private final Following following;
  private final java.util.concurrent.atomic.AtomicBoolean closed =
      new java.util.concurrent.atomic.AtomicBoolean();
  private ExecutorService enrolling;
  private CompletableFuture<Void> enrolled = CompletableFuture.completedFuture(null);

  /** What the nodes of a following fleet share. */
  record Following(
      SpecFollowing spec, CommandFollower follower, ExecutorService workers, Path stateRoot) {}

  private static java.util.logging.Logger quiet(String name) {
    java.util.logging.Logger lines = java.util.logging.Logger.getLogger(name);
    lines.setLevel(java.util.logging.Level.WARNING);
    return lines;
  }

  private SimulatedFleet(
      Settings settings,
      EventPublisher publisher,
      ScheduledExecutorService scheduler,
      Map<String, SimulatedNode> nodes,
      Following following) {
    this.settings = settings;
    this.publisher = publisher;
    this.scheduler = scheduler;
    this.nodes = nodes;
    this.following = following;
  }

  public static SimulatedFleet start(
      FleetFile fleet, String bootstrapServers, Duration heartbeatInterval) {
    return start(fleet, Settings.of(bootstrapServers, heartbeatInterval));
  }

  /** As {@link #start(FleetFile, String, Duration)}, every node following its signed spec. */
  public static SimulatedFleet start(
      FleetFile fleet,
      String bootstrapServers,
      Duration heartbeatInterval,
      CommandVerifier verifier) {
    return start(
        fleet, Settings.of(bootstrapServers, heartbeatInterval), SpecFollowing.of(verifier), null);
  }

  /**
   * Creates every node and starts its agent (NodeRegistered, GpuInventoryReported, heartbeats).
   *
   * @throws IllegalStateException when the broker does not serve the topic within kafkaWait
   */
  public static SimulatedFleet start(FleetFile fleet, Settings settings) {
    return start(fleet, settings, null, null);
  }

  /**
   * Creates every node and starts its agent; with {@code following}, each node also follows its
   * desired spec and commands.
   *
   * @param following null: nodes follow nothing
   * @param stateRoot where writable simulated hosts keep their state directory ({@code
   *     stateRoot/<node>}: gate file, last boot id); null: no host has one (the gate is an event
   *     only)
   * @throws IllegalStateException when the broker does not serve a topic within kafkaWait
   */
  public static SimulatedFleet start(
      FleetFile fleet, Settings settings, SpecFollowing following, Path stateRoot) {
    return start(fleet, settings, following, stateRoot, null);
  }

  /**
   * As {@link #start(FleetFile, Settings, SpecFollowing, Path)}; with {@code enrolment}, every node
   * enrolls its own key and signs its events with it, its agent starting once it is enrolled
   * ({@link #enrolled()}).
   *
   * @param enrolment null: nodes start at once and publish unsigned
   */
  public static SimulatedFleet start(
      FleetFile fleet,
      Settings settings,
      SpecFollowing following,
      Path stateRoot,
      FleetEnrolment enrolment) {
    EventPublisher publisher =
        new EventPublisher(
            new EventPublisher.Settings(
                settings.bootstrapServers(),
                settings.topic(),
                settings.deliveryTimeout(),
                settings.kafkaWait(),
                Map.of()));
    try {
      publisher.awaitTopic();
    } catch (RuntimeException e) {
      publisher.close(Duration.ZERO);
      throw e;
    }
    ScheduledExecutorService scheduler =
        Executors.newScheduledThreadPool(settings.schedulerThreads(), daemonThreads());
    AgentSettings agentSettings =
        new AgentSettings(
            settings.heartbeatInterval(),
            URI.create("fleetwave:simulated-agent"),
            Clock.systemUTC());
    Following shared = null;
    if (following != null) {
      java.util.Set<String> names =
          fleet.nodes().stream().map(NodeSpec::name).collect(java.util.stream.Collectors.toSet());
      CommandFollower follower;
      try {
        follower =
            CommandFollower.start(
                CommandFollower.Settings.of(
                    settings.bootstrapServers(), following, settings.kafkaWait()),
                names::contains,
                following.ranking());
      } catch (RuntimeException e) {
        scheduler.shutdownNow();
        publisher.close(Duration.ZERO);
        throw e;
      }
      shared =
          new Following(
              following,
              follower,
              Executors.newFixedThreadPool(settings.schedulerThreads(), daemonThreads()),
              stateRoot);
    }
    Map<String, SimulatedNode> nodes = new LinkedHashMap<>();
    for (NodeSpec spec : fleet.nodes()) {
      nodes.put(spec.name(), new SimulatedNode(spec, publisher, scheduler, agentSettings, shared));
    }
    SimulatedFleet started = new SimulatedFleet(settings, publisher, scheduler, nodes, shared);
    if (enrolment == null) {
      nodes.values().forEach(SimulatedNode::restart);
      LOG.log(Level.INFO, "simulated fleet of {0} nodes started", nodes.size());
    } else {
      started.enrollAll(enrolment);
    }
    return started;
  }

  /**
   * Enrolls every node, {@code concurrency} at once, once the control plane is reachable; each
   * node's agent starts when its key is enrolled. One HTTP client serves every enrolment.
   */
  private synchronized void enrollAll(FleetEnrolment enrolment) {
    enrolling =
        Executors.newFixedThreadPool(
            enrolment.concurrency(), daemonThreads("fleetwave-sim-enrol-"));
    ExecutorService pool = enrolling;
    enrolled =
        enrolment
            .controlPlane()
            .toCompletableFuture()
            .thenCompose(controlPlane -> enrollAllWith(controlPlane, enrolment, pool))
            .whenComplete((done, failure) -> pool.shutdown());
  }

  private CompletableFuture<Void> enrollAllWith(
      URI controlPlane, FleetEnrolment enrolment, ExecutorService pool) {
    HttpClient http = Enrolment.httpClient();
    long begun = System.nanoTime();
    return CompletableFuture.allOf(
            nodes.values().stream()
                .map(
                    node ->
                        CompletableFuture.runAsync(
                            () -> enroll(node, controlPlane, enrolment, http), pool))
                .toArray(CompletableFuture[]::new))
        .thenRun(
            () ->
                LOG.log(
                    Level.INFO,
                    "simulated fleet of {0} nodes enrolled with {1} in {2} ms, agents started",
                    nodes.size(),
                    controlPlane,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begun)));
  }

  private void enroll(
      SimulatedNode node, URI controlPlane, FleetEnrolment enrolment, HttpClient http) {
    if (closed.get()) {
      return;
    }
    try {
      NodeEventSigner key;
      try {
        key = enrollOnce(node, controlPlane, enrolment, http);
      } catch (EnrolmentRefusedException refused) {
        // A call that ran past its bound on a loaded control plane may have enrolled the node
        // anyway: the retry of its one-time token is then refused as used. A new token, once.
        LOG.log(
            Level.WARNING,
            "node {0}: {1}; enrolling once more with a new join token",
            node.name(),
            refused.getMessage());
        key = enrollOnce(node, controlPlane, enrolment, http);
      }
      publisher.signAs(node.name(), key);
      synchronized (this) {
        if (!closed.get()) {
          node.restart();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.util.concurrent.CancellationException(
          "node " + node.name() + ": enrolment interrupted, the fleet is closing");
    } catch (RuntimeException e) {
      LOG.log(
          Level.WARNING,
          "node {0} did not enroll with {1}, so its agent does not start: {2}",
          node.name(),
          controlPlane,
          e.getMessage());
      throw e;
    }
  }

  private static NodeEventSigner enrollOnce(
      SimulatedNode node, URI controlPlane, FleetEnrolment enrolment, HttpClient http)
      throws InterruptedException {
    return new Enrolment(
            controlPlane,
            new BootstrapCredential.JoinToken(enrolment.joinTokens().mint(node.name())),
            enrolment.patience(),
            http)
        .establish(node.name(), node.stateDirectory());
  }

  /**
   * Completes once every node is enrolled and its agent started (at once for a fleet that does not
   * enroll); fails when a node could not enroll, naming it.
   */
  public CompletableFuture<Void> enrolled() {
    return enrolled;
  }

  private static ThreadFactory daemonThreads() {
    return daemonThreads("fleetwave-sim-");
  }

  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  public Collection<SimulatedNode> nodes() {
    return nodes.values();
  }

  public Optional<SimulatedNode> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }

  /** The shared publisher, for its counters (sent, acknowledged, failed). */
  public EventPublisher publisher() {
    return publisher;
  }

  /**
   * Stops every agent in order (AgentStopping), waits for the acknowledgements and closes the
   * producer, all within the close timeout; what could not be delivered is logged.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (!closed.compareAndSet(false, true)) {
        return; // closed already (a test closes it before its try-with-resources does)
      }
      if (enrolling != null) {
        enrolling.shutdownNow(); // nodes not enrolled yet never start
      }
    }
    long deadline = System.nanoTime() + settings.closeTimeout().toNanos();
    List<CompletableFuture<Void>> stops =
        nodes.values().stream().map(n -> n.stop("simulated fleet closing")).toList();
    try {
      CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new))
          .get(remaining(deadline), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      LOG.log(
          Level.WARNING,
          "AgentStopping not acknowledged for {0} nodes within {1}",
          stops.stream().filter(f -> !f.isDone()).count(),
          settings.closeTimeout());
    } catch (ExecutionException e) {
      LOG.log(Level.WARNING, "AgentStopping failed for some nodes: " + e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (following != null) {
        following.follower().close();
        following.workers().shutdownNow();
      }
      scheduler.shutdownNow();
      publisher.close(Duration.ofNanos(remaining(deadline)));
    }
  }

  private static long remaining(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }
}
