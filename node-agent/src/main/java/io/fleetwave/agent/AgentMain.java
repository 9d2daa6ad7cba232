package io.fleetwave.agent;

import io.fleetwave.agent.desired.BootRecord;
import io.fleetwave.agent.desired.CommandFollower;
import io.fleetwave.agent.desired.PublicKeyFiles;
import io.fleetwave.agent.desired.ReplayFloor;
import io.fleetwave.agent.desired.SpecConverger;
import io.fleetwave.agent.desired.SpecFollowing;
import io.fleetwave.agent.gate.AgentGate;
import io.fleetwave.agent.gate.GateFile;
import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.health.AgentHealth;
import io.fleetwave.agent.health.Probe;
import io.fleetwave.agent.host.DriverLocator;
import io.fleetwave.agent.host.HostFacts;
import io.fleetwave.agent.host.ProcessCommandRunner;
import io.fleetwave.agent.host.TrustedPaths;
import io.fleetwave.agent.hostclients.SystemdReboot;
import io.fleetwave.agent.identity.BootstrapCredential;
import io.fleetwave.agent.identity.Enrolment;
import io.fleetwave.agent.identity.EnrolmentRefusedException;
import io.fleetwave.agent.identity.NodeIdentity;
import io.fleetwave.agent.identity.NodeNameClaim;
import io.fleetwave.agent.kafka.KafkaRefusal;
import io.fleetwave.agent.kubernetes.ApiServerVersion;
import io.fleetwave.agent.kubernetes.Fabric8NodeReader;
import io.fleetwave.agent.logging.AgentLogging;
import io.fleetwave.agent.metrics.AgentMetrics;
import io.fleetwave.agent.nvml.NvmlGpuBackend;
import io.fleetwave.agent.probe.HostProbe;
import io.fleetwave.agent.probe.HostProbeSettings;
import io.fleetwave.agent.publish.EventPublisher;
import io.fleetwave.agent.publish.LastEpochOnTopic;
import io.fleetwave.agent.reset.NodeReboot;
import io.fleetwave.agent.reset.ResetPolicy;
import io.fleetwave.events.Topics;
import io.fleetwave.events.codec.EventCodec;
import io.fleetwave.events.node.GpuInventoryReported;
import io.fleetwave.events.node.NodeRegistered;
import io.fleetwave.events.security.CommandVerifier;
import io.fleetwave.events.security.EnrolledKey;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent on a real GPU node: probe the host, open NVML from the detected driver root, publish
 * facts, inventory and heartbeats until SIGTERM. {@code --probe-only} prints the two events (or the
 * facts and why the GPUs are not ready) and exits without touching anything. With {@code
 * --public-key}, the agent also follows its signed desired spec and commands ({@link
 * SpecConverger}).
 *
 * <p>Without a usable driver the agent does not exit: it registers with the reason (driver version
 * null), heartbeats, and retries the driver probe ({@link DriverWait}); once NVML opens it
 * registers again, publishes the inventory and starts following its spec.
 */
public final class AgentMain {
  private static final System.Logger LOG = System.getLogger(AgentMain.class.getName());
  // What a root agent may load (NVML) and run (nvidia-smi, sriov-manage): files only root (or the
  // agent's own user) can have put there.
  private static final TrustedPaths HOST_FILES = TrustedPaths.rootOrSelf();

  /**
   * How long the agent waits for the control plane to enroll it before it gives up (exit 1): the
   * longest step of its start, which a startup probe must outlast (deploy/ tests check it does).
   */
  public static final Duration ENROLMENT_PATIENCE = Duration.ofMinutes(5);

  /**
   * How long the agent waits at start for Kafka to serve the events topic, and a host that keeps no
   * epoch to read its last one back, before it gives up (exit 1, restarted): the first TLS and
   * SCRAM round trips of a cold JVM on a node busy booting (a driver container building its
   * modules) took more than 10 s.
   */
  static final Duration KAFKA_START_BOUND = Duration.ofSeconds(30);

  private AgentMain() {}

  public static void main(String[] args) throws Exception {
    AgentOptions options;
    try {
      AgentLogging.configure(AgentLogging.format(System.getenv()));
      options = AgentOptions.parse(args, System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("fleetwave-agent: " + e.getMessage());
      System.err.println(AgentOptions.USAGE);
      System.exit(2);
      return;
    }
    Optional<SpecFollowing> following;
    Optional<KafkaClients> kafka;
    try {
      kafka = options.probeOnly() ? Optional.empty() : Optional.of(KafkaClients.of(options));
      following =
          options
              .publicKey()
              .map(key -> SpecFollowing.of(verifier(key).withClockSkew(options.clockSkew())));
    } catch (IllegalArgumentException e) {
      System.err.println("fleetwave-agent: " + e.getMessage());
      System.exit(2);
      return;
    }
    AgentHealth health = new AgentHealth(Clock.systemUTC());
    // AutoCloseable, not AgentMetrics: no Prometheus class is loaded unless the port is set. The
    // port opens first, so that the startup probe can tell what the start is waiting for.
    AutoCloseable metrics =
        options.probeOnly() || options.metricsPort().isEmpty()
            ? null
            : serveMetrics(health, options);
    try {
      start(options, kafka, following, health, metrics);
    } finally {
      closeMetrics(metrics);
    }
  }

  private static void start(
      AgentOptions options,
      Optional<KafkaClients> kafka,
      Optional<SpecFollowing> following,
      AgentHealth health,
      AutoCloseable metrics)
      throws Exception {
    // The Kafka clients start while the host is probed, the Node object read and NVML opened: the
    // producer's metadata and the previous epoch's read are network round trips (about 0.5 and
    // 0.4 s of the sequential start, simulator/BENCH.md) that the first event waits for anyway.
    Optional<CompletableFuture<EventPublisher>> publisher = kafka.map(AgentMain::startPublisher);
    health.starting("probing the host");
    HostFacts facts = probe(options);
    // Started early only without an identity: with one, the read needs the node's own keys, which
    // enrolment gives (HostPublishing starts it then).
    Optional<CompletableFuture<OptionalLong>> lastEpoch =
        kafka
            .filter(k -> HostPublishing.readsTopic(facts) && options.controlPlane().isEmpty())
            .map(k -> startEpochRead(k, facts, Optional.empty()));
    health.starting("reading the Node object");
    Placement placement =
        Placement.of(
            options,
            System.getenv(),
            () -> Fabric8NodeReader.inCluster(Placement.NODE_OBJECT_BOUND),
            Placement.NODE_OBJECT_BOUND);
    health.starting("opening the GPUs");
    DriverWait.Attempt first = openGpus(options, facts);
    if (options.probeOnly()) {
      System.out.println(json(registered(first, placement)));
      switch (first) {
        case DriverWait.Opened opened -> {
          try (GpuBackend gpus = opened.gpus()) {
            System.out.println(json(new GpuInventoryReported(gpus.inventory())));
          }
        }
        case DriverWait.NotReady notReady ->
            System.out.println("GPUs not ready: " + notReady.reason());
      }
      return;
    }
    try {
      run(
          options,
          kafka.orElseThrow(),
          publisher.orElseThrow(),
          lastEpoch,
          placement,
          first,
          following,
          health,
          metrics);
    } catch (EnrolmentRefusedException | IllegalArgumentException e) {
      System.err.println("fleetwave-agent: " + e.getMessage());
      System.exit(2);
    } catch (IllegalStateException e) {
      if (KafkaRefusal.of(e).isEmpty()) {
        throw e;
      }
      // Final: the same credentials and ACLs will be refused again.
      System.err.println("fleetwave-agent: " + e.getMessage());
      System.exit(3);
    }
  }

  /**
   * The node's enrolled key, where a control plane is given: every event is then signed with it.
   * Without one the events are unsigned, and a control plane that requires node identity (the
   * production default) dead-letters them.
   */
  private static Optional<NodeIdentity> identity(
      AgentOptions options, HostFacts facts, String node, AgentHealth health)
      throws InterruptedException {
    if (options.controlPlane().isEmpty()) {
      health.enrolmentNotConfigured("no --control-plane: events unsigned");
      LOG.log(
          Level.WARNING,
          "node {0}: no --control-plane: the node does not enroll and its events are unsigned (a"
              + " control plane that requires node identity refuses them)",
          node);
      return Optional.empty();
    }
    BootstrapCredential credential;
    if (options.joinTokenFile().isPresent()) {
      credential = new BootstrapCredential.JoinTokenFile(options.joinTokenFile().get());
    } else if (options.joinToken().isPresent()) {
      credential = new BootstrapCredential.JoinToken(options.joinToken().get());
    } else {
      Path token =
          Path.of(options.serviceAccountToken().orElse(AgentOptions.POD_SERVICE_ACCOUNT_TOKEN));
      if (!Files.isRegularFile(token)) {
        throw new IllegalArgumentException(
            "--control-plane needs a bootstrap credential: --join-token-file (or FLEETWAVE_JOIN_TOKEN),"
                + " or a service-account"
                + " token (none at "
                + token
                + ")");
      }
      credential = new BootstrapCredential.ServiceAccountToken(token);
    }
    Optional<Path> stateDirectory = facts.writableStateDirectory();
    String controlPlane = options.controlPlane().get();
    health.enrolling(controlPlane);
    NodeIdentity identity;
    try {
      identity =
          new Enrolment(
                  URI.create(controlPlane),
                  credential,
                  ENROLMENT_PATIENCE,
                  options
                      .controlPlaneCa()
                      .map(Enrolment::httpClient)
                      .orElseGet(Enrolment::httpClient))
              .establishIdentity(node, stateDirectory);
    } catch (EnrolmentRefusedException refused) {
      throw credential instanceof BootstrapCredential.ServiceAccountToken token
          ? explained(refused, token)
          : refused;
    }
    health.enrolled(identity.key().keyId(), controlPlane);
    return Optional.of(identity);
  }

  /**
   * A service-account enrolment refused: where the pod's token names no node, the refusal says that
   * Kubernetes 1.30 or later is needed and which version the API server is (one GET of /version).
   */
  private static EnrolmentRefusedException explained(
      EnrolmentRefusedException refused, BootstrapCredential.ServiceAccountToken token) {
    String secret;
    try {
      secret = token.secret();
    } catch (RuntimeException unreadable) {
      return refused;
    }
    return NodeNameClaim.explain(
        refused,
        secret,
        () ->
            ApiServerVersion.describe(
                System.getenv(),
                () -> Fabric8NodeReader.inCluster(Placement.NODE_OBJECT_BOUND),
                Placement.NODE_OBJECT_BOUND));
  }

  /**
   * One attempt to take the GPUs up: NVML from the driver root the probe found. Never throws: a
   * missing library names where it was looked for; a library that does not load or initialise
   * (modules not loaded yet) gives NVML's reason.
   */
  private static DriverWait.Attempt openGpus(AgentOptions options, HostFacts facts) {
    if (facts.nvmlLibrary().isEmpty()) {
      return new DriverWait.NotReady(facts, DriverLocator.nvmlMissing(options.driverRoot()));
    }
    NodeReboot reboot =
        options.rebootAllowed() && facts.os().systemd()
            ? new SystemdReboot(facts, options.busTimeout())
            : reason -> {
              throw new IllegalStateException("node reboot is not allowed here: " + reason);
            };
    ResetPolicy policy = new ResetPolicy(options.rebootAllowed(), Duration.ofSeconds(60));
    NvmlGpuBackend gpus;
    try {
      gpus =
          NvmlGpuBackend.open(
              facts,
              new ProcessCommandRunner(HOST_FILES, ProcessCommandRunner.OUTPUT_LIMIT),
              policy,
              reboot,
              options.nvmlTimeout(),
              HOST_FILES);
    } catch (RuntimeException e) {
      return new DriverWait.NotReady(facts, e.getMessage());
    }
    try {
      return new DriverWait.Opened(facts, gpus, gpus.driverVersion());
    } catch (RuntimeException e) {
      gpus.close();
      return new DriverWait.NotReady(
          facts, "NVML did not report the driver version: " + e.getMessage());
    }
  }

  /** The node's facts; without a usable driver, the driver version is null and says why. */
  private static NodeRegistered registered(DriverWait.Attempt attempt, Placement placement) {
    return switch (attempt) {
      case DriverWait.Opened opened ->
          opened
              .facts()
              .toNodeRegistered(
                  opened.driverVersion(),
                  "driverVersion="
                      + opened.driverVersion()
                      + ": reported by NVML at "
                      + opened.facts().nvmlLibrary().map(Path::toString).orElse("?"),
                  placement.zone(),
                  placement.labels());
      case DriverWait.NotReady notReady ->
          notReady
              .facts()
              .toNodeRegistered(
                  null,
                  "driverVersion=none: GPUs not ready: " + notReady.reason(),
                  placement.zone(),
                  placement.labels());
    };
  }

  private static HostFacts probe(AgentOptions options) {
    HostProbeSettings settings =
        HostProbeSettings.detectAll(options.hostRoot()).withBusTimeout(options.busTimeout());
    if (options.driverRoot().isPresent()) {
      settings = settings.withDriverRoot(options.driverRoot().get());
    }
    if (options.deviceRoot().isPresent()) {
      settings = settings.withDeviceRoot(options.deviceRoot().get());
    }
    if (options.nodeName().isPresent()) {
      settings = settings.withNodeName(options.nodeName().get());
    }
    return new HostProbe(settings).probe();
  }

  private static AutoCloseable serveMetrics(AgentHealth health, AgentOptions options) {
    AgentMetrics served =
        AgentMetrics.serve(health, options.metricsAddress(), options.metricsPort().getAsInt());
    LOG.log(
        Level.INFO,
        "metrics at http://{0}:{1}/metrics, probes at {2}, {3} and {4}",
        options.metricsAddress(),
        String.valueOf(served.port()),
        Probe.STARTUP_PATH,
        Probe.LIVENESS_PATH,
        Probe.READINESS_PATH);
    return served;
  }

  /** Called only where the metrics port is served: the cast loads AgentMetrics, nothing else. */
  private static void trackRun(AutoCloseable metrics, NodeAgent agent) {
    ((AgentMetrics) metrics).track(agent.delivery(), agent::gpusUp, Clock.systemUTC());
  }

  private static void closeMetrics(AutoCloseable metrics) {
    if (metrics == null) {
      return;
    }
    try {
      metrics.close();
    } catch (Exception e) {
      LOG.log(Level.WARNING, "closing the metrics port failed: {0}", e.toString());
    }
  }

  /** The producer, once it has found the events topic, on its own thread. */
  private static CompletableFuture<EventPublisher> startPublisher(KafkaClients kafka) {
    return CompletableFuture.supplyAsync(
        () -> {
          EventPublisher publisher =
              new EventPublisher(
                  EventPublisher.Settings.of(kafka.bootstrapServers())
                      .withOverrides(kafka.overrides()));
          try {
            publisher.awaitTopic(KAFKA_START_BOUND);
            return publisher;
          } catch (RuntimeException e) {
            publisher.close();
            throw e;
          }
        },
        task -> Thread.ofPlatform().daemon().name("kafka-producer-start").start(task));
  }

  /**
   * A publisher logged in as the node's own Kafka user, in place of the one started with the shared
   * settings before enrolment gave the login: that one is closed once it has started, and its
   * failure (the shared settings may hold no login at all) is of no concern any more.
   */
  private static CompletableFuture<EventPublisher> restarted(
      CompletableFuture<EventPublisher> startedShared, KafkaClients ownLogin) {
    var _ =
        startedShared.whenComplete(
            (shared, failed) -> {
              if (shared != null) {
                shared.close();
              }
            });
    return startPublisher(ownLogin);
  }

  /** The node's newest epoch on the topic (read-only host, or no epoch kept), on its own thread. */
  private static CompletableFuture<OptionalLong> startEpochRead(
      KafkaClients kafka, HostFacts facts, Optional<Map<String, EnrolledKey>> ownKeys) {
    return CompletableFuture.supplyAsync(
        () ->
            LastEpochOnTopic.find(
                kafka.bootstrapServers(),
                Topics.NODE_EVENTS,
                facts.hostname(),
                kafka.overrides(),
                KAFKA_START_BOUND,
                ownKeys),
        task -> Thread.ofPlatform().daemon().name("kafka-epoch-read").start(task));
  }

  /** What a start thread returned, or what it threw, as it threw it. */
  private static <T> T awaited(CompletableFuture<T> started) {
    try {
      return started.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  private static void run(
      AgentOptions options,
      KafkaClients shared,
      CompletableFuture<EventPublisher> startedPublisher,
      Optional<CompletableFuture<OptionalLong>> lastEpoch,
      Placement placement,
      DriverWait.Attempt first,
      Optional<SpecFollowing> following,
      AgentHealth health,
      AutoCloseable metrics)
      throws InterruptedException {
    shared
        .file()
        .ifPresent(
            file ->
                LOG.log(
                    Level.INFO,
                    "Kafka client settings from {0}: {1}",
                    file.file(),
                    file.describe()));
    HostFacts facts = first.facts();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    // Inventory reads call NVML, which may block up to its bound: never on the heartbeat's thread.
    ExecutorService gpuReads =
        Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("gpu-reads").factory());
    AtomicReference<GpuBackend> gpus = new AtomicReference<>();
    AtomicReference<CommandFollower> follower = new AtomicReference<>();
    Optional<DriverWait> driverWait = Optional.empty();
    NodeRegistered registered = registered(first, placement);
    Optional<NodeIdentity> identity = identity(options, facts, registered.hostname(), health);
    Optional<KafkaClients> ownLogin =
        identity.flatMap(NodeIdentity::kafkaLogin).map(shared::loggedInAs);
    KafkaClients kafka = ownLogin.orElse(shared);
    health.starting("waiting for Kafka to serve " + Topics.NODE_EVENTS);
    try (EventPublisher publisher =
        awaited(ownLogin.isEmpty() ? startedPublisher : restarted(startedPublisher, kafka))) {
      identity.ifPresent(id -> publisher.signAs(registered.hostname(), id.key()));
      Optional<GpuBackend> openedNow =
          first instanceof DriverWait.Opened opened ? Optional.of(opened.gpus()) : Optional.empty();
      openedNow.ifPresent(gpus::set);
      NodeAgent agent =
          new NodeAgent(
              registered,
              openedNow,
              () -> bootId(facts),
              scheduler,
              gpuReads,
              AgentSettings.of(
                  options.heartbeatInterval(),
                  URI.create("fleetwave:agent/" + registered.hostname())),
              HostPublishing.of(
                  facts,
                  publisher,
                  options.spoolBytes(),
                  options.memoryQueueBytes(),
                  () ->
                      awaited(
                          lastEpoch.orElseGet(
                              () ->
                                  startEpochRead(
                                      kafka, facts, identity.map(NodeIdentity::ownKeys))))));
      health.starting("publishing the registration and the inventory");
      agent.start();
      health.running(
          agent::lastHeartbeat, agent.delivery()::lastAcknowledged, options.heartbeatInterval());
      if (metrics != null) {
        trackRun(metrics, agent);
      }
      switch (first) {
        case DriverWait.Opened opened -> {
          follower.set(takeUp(kafka, opened, agent, following, scheduler));
          health.started(
              "GPUs up (driver "
                  + opened.driverVersion()
                  + "), inventory published"
                  + (following.isPresent() ? ", following the node's spec" : ""));
        }
        case DriverWait.NotReady notReady -> {
          DriverWait wait =
              new DriverWait(
                  registered.hostname(),
                  () -> openGpus(options, probe(options)),
                  options.driverRetryCap(),
                  opened -> {
                    try {
                      agent.gpusReady(registered(opened, placement), opened.gpus());
                    } catch (RuntimeException e) {
                      opened.gpus().close(); // the run stopped while the driver was awaited
                      throw e;
                    }
                    gpus.set(opened.gpus());
                    follower.set(takeUp(kafka, opened, agent, following, scheduler));
                  });
          wait.start(notReady);
          driverWait = Optional.of(wait);
          health.started("waiting for the driver (" + notReady.reason() + ")");
        }
      }
      // NVML has no change callback for MIG or SR-IOV state: re-read on an interval.
      pollInventory(scheduler, agent, options.inventoryInterval().toMillis());
      CountDownLatch stopped = new CountDownLatch(1);
      Optional<DriverWait> waiting = driverWait;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    waiting.ifPresent(DriverWait::close);
                    Optional.ofNullable(follower.get()).ifPresent(CommandFollower::close);
                    agent
                        .stop("SIGTERM")
                        .orTimeout(10, TimeUnit.SECONDS)
                        .exceptionally(e -> null)
                        .join();
                    // Not acknowledged in time: what is left stays in the spool for the next run.
                    agent.release();
                    stopped.countDown();
                  },
                  "fleetwave-agent-stop"));
      stopped.await();
    } finally {
      driverWait.ifPresent(DriverWait::close);
      scheduler.shutdownNow();
      gpuReads.shutdownNow();
      Optional.ofNullable(gpus.get()).ifPresent(GpuBackend::close);
    }
  }

  /** With the GPUs up, follows the node's signed spec, where a public key was given. */
  private static CommandFollower takeUp(
      KafkaClients kafka,
      DriverWait.Opened opened,
      NodeAgent agent,
      Optional<SpecFollowing> following,
      ScheduledExecutorService scheduler) {
    return following
        .map(f -> follow(kafka, opened.facts(), agent, opened.gpus(), f, scheduler))
        .orElse(null);
  }

  /**
   * Starts following the node's desired spec: the gate file and the last boot id go to the state
   * directory where the host is writable and has one; elsewhere the gate is an event only.
   */
  private static CommandFollower follow(
      KafkaClients kafka,
      HostFacts facts,
      NodeAgent agent,
      GpuBackend gpus,
      SpecFollowing following,
      ScheduledExecutorService scheduler) {
    Optional<Path> stateDirectory = facts.writableStateDirectory();
    AgentGate gate =
        new AgentGate(
            stateDirectory
                .<io.fleetwave.agent.reconcile.DevicePluginGate>map(
                    dir -> new GateFile(dir, () -> bootId(facts)))
                .stream()
                .toList());
    SpecConverger converger =
        new SpecConverger(
            agent,
            gpus,
            gate,
            stateDirectory.map(BootRecord::inDirectory).orElseGet(BootRecord::none),
            stateDirectory.map(ReplayFloor::inDirectory).orElseGet(ReplayFloor::none),
            () -> bootId(facts),
            following,
            Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().factory()),
            scheduler);
    CommandFollower follower =
        CommandFollower.start(
            CommandFollower.Settings.of(kafka.bootstrapServers(), following, Duration.ofSeconds(10))
                .withOverrides(kafka.overrides()),
            registered -> registered.equals(agent.nodeName()),
            following.ranking());
    converger.start();
    follower.follow(converger);
    return follower;
  }

  /**
   * The trusted public keys: the PEM itself (environment variable), or a comma-separated list of
   * files and directories ({@link PublicKeyFiles}: every visible file of a directory is a key, as a
   * mounted ConfigMap holds them; read again when they change, so keys rotate in running agents). A
   * file may be a key of a mounted ConfigMap: a symlink through {@code ..data/} to the current
   * version, followed here.
   *
   * @throws IllegalArgumentException naming the file when it is missing, unreadable or not an
   *     Ed25519 public key in PEM, or the directory when it holds none
   */
  static CommandVerifier verifier(String filesOrPem) {
    if (filesOrPem.strip().startsWith("-----BEGIN")) {
      try {
        return CommandVerifier.fromX509(filesOrPem);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--public-key: " + e.getMessage(), e);
      }
    }
    List<Path> sources =
        Arrays.stream(filesOrPem.split(","))
            .map(String::strip)
            .filter(s -> !s.isEmpty())
            .map(Path::of)
            .toList();
    return CommandVerifier.trusting(PublicKeyFiles.load(sources));
  }

  private static String bootId(HostFacts facts) {
    try {
      return Files.readString(facts.resolve("/proc/sys/kernel/random/boot_id")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String json(Object event) throws IOException {
    Map<String, Object> wrapped = new LinkedHashMap<>();
    wrapped.put("type", event.getClass().getSimpleName());
    wrapped.put("data", event);
    return EventCodec.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(wrapped);
  }

  // The schedule's future is not kept: inventoryMayHaveChanged only queues a guarded check, so
  // nothing it runs can throw and end the schedule unseen; the scheduler's shutdown stops it.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void pollInventory(
      ScheduledExecutorService scheduler, NodeAgent agent, long every) {
    scheduler.scheduleWithFixedDelay(
        agent::inventoryMayHaveChanged, every, every, TimeUnit.MILLISECONDS);
  }
}
