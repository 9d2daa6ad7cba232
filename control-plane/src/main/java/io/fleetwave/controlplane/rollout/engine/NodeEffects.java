package io.fleetwave.controlplane.rollout.engine;

import io.fleetwave.controlplane.database.DatabaseFailures;
import io.fleetwave.controlplane.database.Rows;
import io.fleetwave.controlplane.logging.LogContext;
import io.fleetwave.controlplane.readmodel.RolloutReadModel;
import io.fleetwave.controlplane.rollout.drain.DrainException;
import io.fleetwave.controlplane.rollout.drain.NodeDrain;
import io.fleetwave.controlplane.rollout.driver.DriverChangeExecutor;
import io.fleetwave.controlplane.rollout.driver.DriverChangeRequest;
import io.fleetwave.controlplane.security.SigningKeyMissingException;
import io.fleetwave.controlplane.spec.BrokerUnavailableException;
import io.fleetwave.controlplane.spec.RolloutSpecRequest;
import io.fleetwave.controlplane.spec.SpecService;
import io.fleetwave.core.driver.DriverArtifact;
import io.fleetwave.core.driver.DriverArtifactResolver;
import io.fleetwave.core.driver.DriverResolution;
import io.fleetwave.core.driver.DriverVersion;
import io.fleetwave.core.rollout.decide.EffectReport;
import io.fleetwave.core.rollout.decide.NodeRun;
import io.fleetwave.core.rollout.decide.NodeState;
import io.fleetwave.core.rollout.decide.RolloutRules;
import io.fleetwave.core.rollout.decide.RolloutRun;
import io.fleetwave.core.rollout.disruption.Disruption;
import io.fleetwave.core.rollout.disruption.NodeOutage;
import io.fleetwave.core.rollout.plan.NodePlan;
import io.fleetwave.events.rollout.Phase;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The effects of a node's start, after its NodeStarted is in the log: with an active {@link
 * NodeDrain}, taking the node out of service, whose report the decider records before the engine
 * calls {@link #carryOut} again for the node; then the signed spec through {@link SpecService} and,
 * for a driver change, the request to the driver executor; after the node's result, putting it back
 * in service (or keeping it out after a failure). Effects run concurrently, bounded per node; what
 * they report comes back as {@link EffectReport}s through a queue the engine drains and hands to
 * the decider. Effects never append events.
 */
final class NodeEffects {
  private static final Logger LOG = Logger.getLogger(NodeEffects.class);

  private final SpecService specs;
  private final NodeDrain drain;
  private final DriverChangeExecutor drivers;
  private final DriverArtifactResolver resolver;
  private final Pool pool;
  private final Duration timeout;
  private final int specChunk;
  private final int chunksAtOnce;

  /**
   * @param specChunk the most specs sent in one transaction: a wave start's specs go out in chunks
   *     of this many, so its first nodes do not wait for the whole wave's batch
   * @param chunksAtOnce how many chunks of one carry-out are in flight at once
   */
  NodeEffects(
      SpecService specs,
      NodeDrain drain,
      DriverChangeExecutor drivers,
      DriverArtifactResolver resolver,
      Pool pool,
      Duration timeout,
      int specChunk,
      int chunksAtOnce) {
    if (specChunk < 1 || chunksAtOnce < 1) {
      throw new IllegalArgumentException(
          "specChunk and chunksAtOnce must be at least 1, got " + specChunk + ", " + chunksAtOnce);
    }
    this.chunksAtOnce = chunksAtOnce;
    this.specChunk = specChunk;
    this.specs = specs;
    this.drain = drain;
    this.drivers = drivers;
    this.resolver = resolver;
    this.pool = pool;
    this.timeout = timeout;
  }

  /** The current desired specs of these nodes (those without one are missing). */
  Map<String, NodeSpec> desiredSpecs(List<String> nodes) {
    if (nodes.isEmpty()) {
      return Map.of();
    }
    return specs.currentSpecs(pool, nodes).await().atMost(timeout);
  }

  /**
   * The revoked nodes of the fleet (admin revocation, until re-admitted): few, read whole once a
   * round, so a revocation takes effect in the engine's next round.
   */
  Set<String> revokedNodes() {
    return pool.query("SELECT node FROM revoked_nodes")
        .execute()
        .map(rows -> new HashSet<>(Rows.each(rows, row -> row.getString("node"))))
        .await()
        .atMost(timeout);
  }

  /** How long taking a node out of service may take; zero when nodes are never taken out. */
  Duration drainBound() {
    return drain.active() ? drain.bound() : Duration.ZERO;
  }

  /**
   * Sends these nodes their specs in chunks of at most {@code specChunk} (each one batch), then
   * their driver requests, without waiting: the engine goes on deciding meanwhile, and is woken as
   * each chunk completes. Nodes that could not be handed over are reported ({@link
   * EffectReport.HandOverFailed}, with the generation, so a later start of the same node is not
   * failed by mistake) and the engine is woken. With an active drain, nodes not yet out of service
   * are only taken out of service here: the drain's report is queued, and the engine calls again
   * once the decider recorded it in the log.
   */
  void carryOut(
      RolloutRun run,
      RolloutRules rules,
      List<String> nodes,
      java.util.Queue<EffectReport> reports,
      Runnable wakeUp) {
    carryOut(run, rules, nodes, reports, wakeUp, notSent -> {});
  }

  /**
   * As above; specs that could not be sent now fail no node: Kafka did not take them because the
   * broker is away ({@link BrokerUnavailableException}: nothing was saved or sent), or PostgreSQL
   * could not be reached or did not answer within twice the timeout ({@link
   * DatabaseFailures#unavailable}: the batch's transaction did not commit). Their nodes are handed
   * to {@code notSentNow} to be sent again later, as after a takeover (a batch is idempotent per
   * node). A database outage had failed the node whose spec was on its way, and with it the wave.
   */
  void carryOut(
      RolloutRun run,
      RolloutRules rules,
      List<String> nodes,
      java.util.Queue<EffectReport> reports,
      Runnable wakeUp,
      java.util.function.Consumer<List<String>> notSentNow) {
    if (drain.active()) {
      List<String> ready = new ArrayList<>();
      for (String name : nodes) {
        NodeRun node = run.nodeRun(name);
        if (node.outOfService()) {
          ready.add(name);
        } else {
          takeOutOfService(run, rules, node, reports, wakeUp);
        }
      }
      nodes = ready;
    }
    if (nodes.isEmpty()) {
      return;
    }
    UUID rollout = run.id();
    List<NodeSend> sends = new ArrayList<>();
    for (String name : nodes) {
      NodeRun node = run.nodeRun(name);
      NodePlan plan = rules.plan(name);
      long generation = node.generation();
      Phase phase = node.phase();
      try (LogContext.Scope _ = LogContext.node(name)) {
        LOG.infof(
            "rollout %s: sending node %s its spec, generation %d (%s)",
            run.name(), name, generation, phase == Phase.FORWARD ? "forward" : "back");
      }
      RolloutSpecRequest request =
          new RolloutSpecRequest(
              name,
              phase == Phase.FORWARD
                  ? NodeChanges.forward(plan)
                  : NodeChanges.back(plan, node.restore()),
              generation);
      // The driver change as the decider logged it for this start (never worked out again here).
      NodeRun.DriverRequest driver = node.driverRequest();
      Uni<Void> driverRequest = null;
      if (driver != null) {
        NodeOutage outage = drain.active() ? outage(run, rules, node) : null;
        driverRequest =
            driverArtifact(plan, name, phase, driver.driverVersion())
                .chain(
                    artifact ->
                        drivers
                            .request(
                                new DriverChangeRequest(
                                    driver.requestId(),
                                    rollout,
                                    name,
                                    plan.hostKind(),
                                    phase == Phase.FORWARD
                                        ? plan.driver().fromVersion()
                                        : plan.driver().toVersion(),
                                    artifact))
                            .chain(() -> rebooting(outage, artifact)))
                .onFailure()
                .invoke(
                    e ->
                        reports.add(
                            new EffectReport.HandOverFailed(rollout, name, generation, reason(e))))
                .onFailure()
                .recoverWithNull();
      }
      sends.add(new NodeSend(request, driverRequest));
    }
    // Bounded chunks, each its own transaction, a few at once: the first nodes of a wave start get
    // their specs while the rest are still being signed and saved, instead of all waiting for one
    // batch of the whole wave. Each chunk is idempotent per node as the whole batch was (an engine
    // that takes over sends its in-flight nodes again), so a crash between chunks loses nothing.
    // The chunks are built here, on the engine thread (lazy: nothing runs before the subscription),
    // so what the spec service refuses at once (no signing key) fails the round as before.
    List<Uni<Void>> chunks = new ArrayList<>();
    long carriedOut = System.nanoTime();
    for (int from = 0; from < sends.size(); from += specChunk) {
      List<NodeSend> chunk = sends.subList(from, Math.min(sends.size(), from + specChunk));
      int first = from;
      long[] subscribed = new long[1];
      chunks.add(
          sendChunk(rollout, List.copyOf(chunk), reports, notSentNow)
              .onSubscription()
              .invoke(() -> subscribed[0] = System.nanoTime())
              .invoke(wakeUp)
              .invoke(
                  () ->
                      LOG.debugf(
                          "rollout %s: spec chunk of nodes %d-%d (of %d) done %.1f ms after the"
                              + " carry-out (queued %.1f ms)",
                          run.name(),
                          first,
                          first + chunk.size() - 1,
                          sends.size(),
                          (System.nanoTime() - carriedOut) / 1e6,
                          (subscribed[0] - carriedOut) / 1e6)));
    }
    Multi.createFrom()
        .iterable(chunks)
        .onItem()
        .transformToUni(chunk -> chunk)
        .merge(chunksAtOnce)
        .subscribe()
        .with(nothing -> {}, error -> wakeUp.run());
  }

  /** One node's spec request, and its driver request (lazy; null when its driver stays). */
  private record NodeSend(RolloutSpecRequest spec, Uni<Void> driverRequest) {}

  /**
   * One chunk's specs in one batch, then its driver requests; what fails is reported per node, and
   * never fails the stream of chunks.
   */
  private Uni<Void> sendChunk(
      UUID rollout,
      List<NodeSend> chunk,
      java.util.Queue<EffectReport> reports,
      java.util.function.Consumer<List<String>> notSentNow) {
    Map<String, Long> generations = new java.util.LinkedHashMap<>();
    chunk.forEach(send -> generations.put(send.spec().node(), send.spec().generation()));
    List<Uni<Void>> driverRequests =
        chunk.stream().map(NodeSend::driverRequest).filter(java.util.Objects::nonNull).toList();
    return specs
        .putAllForRollout(pool, chunk.stream().map(NodeSend::spec).toList())
        .ifNoItem()
        .after(timeout.multipliedBy(2))
        .failWith(() -> new TimeoutException("no answer within " + timeout.multipliedBy(2)))
        .onItemOrFailure()
        .transformToUni(
            (refused, error) -> {
              if (error instanceof BrokerUnavailableException
                  || (error != null && DatabaseFailures.unavailable(error))) {
                notSentNow.accept(List.copyOf(generations.keySet()));
                return Uni.createFrom().voidItem();
              }
              if (error != null) {
                String reason = "the spec could not be published: " + reason(error);
                generations.forEach(
                    (n, g) -> reports.add(new EffectReport.HandOverFailed(rollout, n, g, reason)));
                return Uni.createFrom().voidItem();
              }
              refused.forEach(
                  (node, why) ->
                      reports.add(
                          new EffectReport.HandOverFailed(
                              rollout, node, generations.get(node), why)));
              return driverRequests.isEmpty()
                  ? Uni.createFrom().voidItem()
                  : Uni.join().all(driverRequests).andCollectFailures().replaceWithVoid();
            })
        .onFailure()
        .recoverWithNull();
  }

  /** Takes one node out of service; its event or its failure comes back through the queues. */
  private void takeOutOfService(
      RolloutRun run,
      RolloutRules rules,
      NodeRun node,
      java.util.Queue<EffectReport> reports,
      Runnable wakeUp) {
    UUID rollout = run.id();
    String name = node.node();
    long generation = node.generation();
    Duration bound = drain.bound().plus(timeout);
    drain
        .takeOutOfService(outage(run, rules, node))
        .ifNoItem()
        .after(bound)
        .failWith(
            () ->
                new DrainException(
                    "node "
                        + name
                        + " was not taken out of service ("
                        + drain.name()
                        + ") within "
                        + bound.toSeconds()
                        + " s"))
        .subscribe()
        .with(
            event -> {
              reports.add(new EffectReport.TakenOutOfService(rollout, name, generation, event));
              wakeUp.run();
            },
            error -> {
              String reason =
                  error instanceof DrainException
                      ? error.getMessage()
                      : "node " + name + " could not be taken out of service: " + reason(error);
              reports.add(new EffectReport.NotTakenOutOfService(rollout, name, generation, reason));
              wakeUp.run();
            });
  }

  /**
   * Puts one finished node back in service (or keeps it out after a failure, its pauses undone), if
   * it still waits for that. What happens is reported; a drain that cannot answer is reported as
   * {@link EffectReport.ReleaseFailed} with the cause, so the node's slot is never held forever.
   */
  void release(
      RolloutRun run,
      RolloutRules rules,
      NodeRun node,
      java.util.Queue<EffectReport> reports,
      Runnable wakeUp) {
    if (!drain.active() || node == null || !node.releasePending()) {
      return;
    }
    UUID rollout = run.id();
    String name = node.node();
    long generation = node.generation();
    NodeOutage outage = outage(run, rules, node);
    Uni<EffectReport> release =
        node.state() == NodeState.SUCCEEDED
            ? drain
                .returnToService(outage)
                .map(back -> new EffectReport.ReturnedToService(rollout, name, generation, back))
            : drain
                .keepOutOfService(outage, node.reason())
                .map(kept -> new EffectReport.KeptOutOfService(rollout, name, generation, kept));
    String doing =
        node.state() == NodeState.SUCCEEDED
            ? "could not return node " + name + " to service"
            : "node " + name + " failed (" + node.reason() + "); undoing its pauses failed";
    release
        .ifNoItem()
        .after(drain.bound())
        .failWith(() -> new IllegalStateException("no answer within " + drain.bound()))
        .onFailure()
        .recoverWithItem(
            error ->
                new EffectReport.ReleaseFailed(
                    rollout, name, generation, doing + " (" + drain.name() + "): " + reason(error)))
        .subscribe()
        .with(
            report -> {
              reports.add(report);
              wakeUp.run();
            });
  }

  /**
   * A node out of service that its rollout no longer follows (aborted, or failed meanwhile): its
   * pauses are undone and it stays cordoned. No event (the rollout is over or has moved on): only
   * logged.
   */
  void abandon(NodeOutage outage, String reason) {
    drain
        .keepOutOfService(outage, reason)
        .ifNoItem()
        .after(drain.bound())
        .fail()
        .subscribe()
        .with(
            kept ->
                LogContext.aboutNode(
                    outage.node(),
                    () ->
                        LOG.infof("node %s kept out of service: %s", outage.node(), kept.reason())),
            error ->
                LogContext.aboutNode(
                    outage.node(),
                    () ->
                        LOG.warnf(
                            "node %s (%s): undoing its pauses failed (%s): %s",
                            outage.node(), reason, drain.name(), reason(error))));
  }

  /** The drain's view of a node's change in its current phase. */
  static NodeOutage outage(RolloutRun run, RolloutRules rules, NodeRun node) {
    NodePlan plan = rules.plan(node.node());
    Disruption disruption =
        node.phase() == Phase.FORWARD || node.forwardOutOfService()
            ? Disruption.of(plan)
            : Disruption.NONE;
    boolean mig = disruption != Disruption.NONE && !plan.gpuChanges().isEmpty();
    String migConfig = node.phase() == Phase.FORWARD ? rules.migConfig() : node.migConfigBefore();
    return new NodeOutage(run.id(), node.node(), node.phase(), disruption, mig, migConfig);
  }

  /** After an OS upgrade was handed over: the node is about to reboot. Never fails the node. */
  private Uni<Void> rebooting(NodeOutage outage, DriverArtifact artifact) {
    if (outage == null || !(artifact instanceof DriverArtifact.OsImage)) {
      return Uni.createFrom().voidItem();
    }
    return drain
        .rebooting(outage)
        .ifNoItem()
        .after(timeout)
        .fail()
        .onFailure()
        .invoke(
            e ->
                LogContext.aboutNode(
                    outage.node(),
                    () ->
                        LOG.warnf(
                            "node %s: cannot record that it reboots (%s): %s",
                            outage.node(), drain.name(), reason(e))))
        .onFailure()
        .recoverWithNull();
  }

  /** Forward: the plan's artifact. Back: the old version, resolved for the node as it is now. */
  private Uni<DriverArtifact> driverArtifact(
      NodePlan plan, String node, Phase phase, String version) {
    if (phase == Phase.FORWARD) {
      return Uni.createFrom().item(plan.driver().artifact());
    }
    return RolloutReadModel.driverFacts(pool, node)
        .map(
            facts ->
                switch (resolver.resolve(facts, List.of(), DriverVersion.parse(version))) {
                  case DriverResolution.Resolved resolved -> resolved.artifact();
                  case DriverResolution.Unservable unservable ->
                      throw new IllegalStateException(
                          "cannot roll the driver back to " + version + ": " + unservable.reason());
                });
  }

  private static String reason(Throwable e) {
    if (e instanceof BrokerUnavailableException || e instanceof SigningKeyMissingException) {
      return e.getMessage();
    }
    return e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
