package io.fleetwave.controlplane.rollout.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fleetwave.controlplane.config.NodeIdentityConfig;
import io.fleetwave.controlplane.config.RolloutConfig;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.projection.NodeEventAuthenticity;
import io.fleetwave.controlplane.rollout.drain.NodeDrain;
import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.rollout.store.RolloutSignals;
import io.fleetwave.controlplane.security.CommandSigning;
import io.fleetwave.controlplane.spec.SpecService;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Builds rollout engines from the application's services and runs this replica's one (unless {@code
 * fleetwave.rollout.engine.enabled=false}). Tests build more, to stop one mid-rollout the way a
 * crash would and let another take over.
 */
@ApplicationScoped
public class RolloutEngines {
  private final Map<String, Object> kafka;
  private final Pool pool;
  private final NodeIdentityConfig identity;
  private final CommandSigning commandSigning;
  private final SpecService specs;
  private final DriverChangeExecutor drivers;
  private final NodeDrain drain;
  private final DriverArtifactResolver resolver;
  private final ObjectMapper json;
  private final RolloutSignals signals;
  private final boolean enabled;
  private final Duration tick;
  private final Duration timeout;
  private final Duration lease;
  private final int specChunk;
  private final int specChunksAtOnce;
  private final MeterRegistry registry;
  private final EnginePool enginePool;
  private final ControlFactLog facts;
  private volatile RolloutEngine engine;

  public RolloutEngines(
      @Identifier("default-kafka-broker") Map<String, Object> kafka,
      Pool pool,
      SpecService specs,
      DriverChangeExecutor drivers,
      NodeDrain drain,
      DriverArtifactResolver resolver,
      ObjectMapper json,
      RolloutSignals signals,
      RolloutConfig config,
      MeterRegistry registry,
      NodeIdentityConfig identity,
      EnginePool enginePool,
      ControlFactLog facts,
      CommandSigning commandSigning) {
    this.commandSigning = commandSigning;
    this.enginePool = enginePool;
    this.facts = facts;
    this.identity = identity;
    this.kafka = kafka;
    this.pool = pool;
    this.specs = specs;
    this.drivers = drivers;
    this.drain = drain;
    this.resolver = resolver;
    this.json = json;
    this.signals = signals;
    this.enabled = config.engine().enabled();
    this.tick = config.engine().tick();
    this.timeout = config.engine().timeout();
    this.lease = config.engine().lease();
    this.specChunk = config.engine().specChunk();
    this.specChunksAtOnce = config.engine().specChunksAtOnce();
    this.registry = registry;
  }

  private long leadingTerm() {
    RolloutEngine running = engine;
    return running == null ? 0 : running.leadingTerm();
  }

  void onStart(@Observes StartupEvent event) {
    // Per replica: exactly one replica should show 1 (alerts take the max over replicas).
    Gauge.builder("fleetwave.rollout.engine.leading", this, e -> e.leadingTerm() > 0 ? 1 : 0)
        .description("1 while this replica's rollout engine leads, else 0")
        .register(registry);
    Gauge.builder("fleetwave.rollout.engine.term", this, RolloutEngines::leadingTerm)
        .description("The leader term this replica's engine acts in (0 when it does not lead)")
        .register(registry);
    // A request queued on any replica wakes this replica's engine (it acts only while it leads).
    signals.queued().subscribe().with(queued -> engine().ifPresent(RolloutEngine::wakeUp));
    if (enabled) {
      engine = create(EngineFaults.NONE);
      engine.start();
    }
  }

  void onStop(@Observes ShutdownEvent event) {
    RolloutEngine running = engine;
    if (running != null) {
      running.close();
    }
  }

  /** Stops this replica's engine (tests: to stop it mid-rollout), leaving none running. */
  public void stopEngine() {
    RolloutEngine running = engine;
    engine = null;
    if (running != null) {
      running.close();
    }
  }

  /** Makes {@code replacement} (already started) this replica's engine. */
  public void adopt(RolloutEngine replacement) {
    stopEngine();
    engine = replacement;
  }

  /** This replica's engine, if it runs one. */
  public Optional<RolloutEngine> engine() {
    return Optional.ofNullable(engine);
  }

  /** A new, not yet started engine, on the engine's own database pool ({@link EnginePool}). */
  public RolloutEngine create(EngineFaults faults) {
    return create(faults, enginePool.orShared(pool));
  }

  /** A new, not yet started engine on its own database pool (tests: one to cut off). */
  public RolloutEngine create(EngineFaults faults, Pool pool) {
    return create(faults, pool, kafka);
  }

  /**
   * A new, not yet started engine appending through a Kafka client of {@code rolloutLogKafka}'s
   * settings (tests: appends that Kafka never takes).
   */
  RolloutEngine create(EngineFaults faults, Map<String, Object> rolloutLogKafka) {
    return create(faults, enginePool.orShared(pool), rolloutLogKafka);
  }

  private RolloutEngine create(
      EngineFaults faults, Pool pool, Map<String, Object> rolloutLogKafka) {
    RolloutEngine[] self = new RolloutEngine[1];
    // The node keys of the results it reads come from the engine's pool too.
    NodeEventAuthenticity authenticity =
        new NodeEventAuthenticity(pool, identity, commandSigning, registry);
    FleetObserver observer =
        new FleetObserver(
            kafka, pool, timeout, () -> self[0].wakeUp(), authenticity::forBatchBlocking);
    self[0] =
        new RolloutEngine(
            new RolloutLog(rolloutLogKafka, timeout),
            new RolloutProgressStore(pool, json, timeout),
            observer,
            new EngineLeadership(pool, lease),
            new NodeEffects(
                specs, drain, drivers, resolver, pool, timeout, specChunk, specChunksAtOnce),
            json,
            Clock.systemUTC(),
            tick,
            faults,
            facts);
    return self[0];
  }

  /** Whether driver changes can be carried out here (a driver executor is configured). */
  public boolean driverChangesConfigured() {
    return drivers.configured();
  }
}
