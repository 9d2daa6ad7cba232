package io.fleetwave.controlplane.spec;

import io.fleetwave.controlplane.config.CommandsConfig;
import io.fleetwave.controlplane.database.Connections;
import io.fleetwave.controlplane.database.PipelinedTransaction;
import io.fleetwave.controlplane.facts.ControlFactLog;
import io.fleetwave.controlplane.projection.ObservedGpu;
import io.fleetwave.controlplane.readmodel.FleetReadModel;
import io.fleetwave.controlplane.readmodel.NodeQueries;
import io.fleetwave.controlplane.security.CommandSigning;
import io.fleetwave.controlplane.spec.store.SpecFacts;
import io.fleetwave.core.projection.ReconcileState;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.Topics;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.fact.CommandGenerationUsed;
import io.fleetwave.events.fact.DesiredSpecSet;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.spec.NodeSpec;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Desired specs and one-shot commands: validate, number, sign, publish.
 *
 * <p>Ordering of a spec change (why no generation is ever used twice): one PostgreSQL transaction
 * takes a per-node advisory lock, reads the current desired spec, validates and merges the request
 * into generation + 1, sends the signed ApplyNodeSpec and waits for the broker's acknowledgement
 * (bounded), then records it as a {@code DesiredSpecSet} fact on fleet.control-facts (acknowledged
 * too) and saves the row from it; it commits only after that. A broker timeout rolls the row back
 * (503, nothing changed), and concurrent PUTs for one node queue on the lock. A commit that fails
 * after both acknowledgements no longer leaves a generation behind: the fact is on the log and
 * every replica's follower applies it, as a rebuild of a lost database does. The one window left:
 * the spec acknowledged but its fact refused (503); the next PUT reuses that generation and the
 * agent rejects it as replayed (SpecRejected, shown as the node's not-converged reason), never
 * applies it; a further PUT moves past it.
 *
 * <p>One-shot commands take their generation from a per-node counter, recorded as a {@code
 * CommandGenerationUsed} fact and committed before sending: a failed send leaves a gap, never a
 * reused number, which is all a nonce needs; a rebuilt counter starts above every fact.
 */
@ApplicationScoped
public class SpecService {
  private static final URI SOURCE = URI.create("fleetwave:control-plane");

  private final Pool pool;
  private final NodeQueries nodes;
  private final CommandSigning signing;
  private final CommandPublisher publisher;
  private final ControlFactLog facts;
  private final SpecValidator validator = new SpecValidator(GpuCatalog.bundled());
  private final Duration commandLifetime;
  private final Clock clock = Clock.systemUTC();

  public SpecService(
      Pool pool,
      NodeQueries nodes,
      CommandSigning signing,
      CommandPublisher publisher,
      CommandsConfig config,
      ControlFactLog facts) {
    this.facts = facts;
    this.pool = pool;
    this.nodes = nodes;
    this.signing = signing;
    this.publisher = publisher;
    this.commandLifetime = config.lifetime();
  }

  /** Validates, saves (with {@code actor}, the token subject), signs and publishes a spec. */
  public Uni<SpecPublished> put(String node, SpecRequest request, String actor) {
    signing.requireConfigured();
    return Connections.withTransaction(
        pool,
        conn ->
            DesiredSpecs.lockNode(conn, node)
                .chain(() -> requireNode(conn, node))
                .chain(() -> DesiredSpecs.current(conn, node))
                .chain(
                    previous ->
                        DesiredSpecs.observedGpus(conn, node)
                            .map(observed -> validate(node, previous, observed, request)))
                .call(spec -> publisher.send(Topics.NODE_DESIRED, signed(spec)))
                .call(spec -> record(conn, List.of(spec), actor))
                .map(spec -> new SpecPublished(node, spec.generation())));
  }

  /**
   * Publishes many rollout specs in one transaction on {@code via} (the rollout engine's own pool,
   * so a batch never queues behind the projection): the nodes are locked in name order and read
   * (existence, current spec, observed GPUs), BEGIN, the lock and the three reads sent together in
   * one round trip ({@link PipelinedTransaction}); validated, then saved while they are signed, and
   * the signed specs are sent together; the commit waits for Kafka's acknowledgement of all of
   * them. Idempotent per node: a node already at its generation (an engine that took over re-sends
   * its in-flight nodes) is left alone; a node whose spec moved on outside the rollout, or whose
   * spec is invalid, is reported. Completes with the nodes that failed and why (empty when all went
   * out); fails as a whole (503) when Kafka does not acknowledge, and then nothing was saved.
   */
  public Uni<java.util.Map<String, String>> putAllForRollout(
      Pool via, List<RolloutSpecRequest> requests) {
    signing.requireConfigured();
    if (requests.isEmpty()) {
      return Uni.createFrom().item(java.util.Map.of());
    }
    List<String> names = requests.stream().map(RolloutSpecRequest::node).toList();
    SpecBatchTimings timings = new SpecBatchTimings(requests.size());
    return PipelinedTransaction.run(
            via,
            transaction -> {
              SqlConnection conn = transaction.connection();
              // BEGIN, the lock and the three reads go out together. PostgreSQL runs them in
              // order, so the reads see the rows as they are under the lock.
              return Uni.combine()
                  .all()
                  .unis(
                      DesiredSpecs.lockNodes(conn, names),
                      FleetReadModel.existingNodes(conn, names),
                      DesiredSpecs.currentAll(conn, names),
                      DesiredSpecs.observedGpusAll(conn, names))
                  .with(
                      (locked, existing, current, observed) -> {
                        timings.mark("lock+reads");
                        RolloutBatch batch = decideAll(requests, existing, current, observed);
                        timings.mark("validate");
                        return batch;
                      })
                  .call(
                      batch ->
                          // Signed, sent, then recorded as facts and saved (as put does); COMMIT
                          // goes out only once Kafka has acknowledged both.
                          signedAll(batch.specs(), timings)
                              .invoke(() -> timings.mark("sign"))
                              .chain(signed -> publisher.sendAll(Topics.NODE_DESIRED, signed))
                              .invoke(() -> timings.mark("send+ack"))
                              .call(() -> record(conn, batch.specs(), null))
                              .invoke(() -> timings.mark("facts+save"))
                              .call(transaction::commit))
                  .map(RolloutBatch::failures);
            })
        .invoke(() -> timings.done("commit"));
  }

  /** How many specs one worker signs: a batch's signatures are made on several at once. */
  private static final int SIGNED_PER_WORKER = 25;

  /**
   * The specs signed, in order, on worker threads (never the event loop that serves the engine's
   * other statements), {@value #SIGNED_PER_WORKER} per worker: Ed25519 signatures are independent,
   * so a wave start's hundreds of them use every core rather than one.
   */
  private Uni<List<CommandEnvelope>> signedAll(List<NodeSpec> specs, SpecBatchTimings timings) {
    if (specs.isEmpty()) {
      return Uni.createFrom().item(List.of());
    }
    long started = System.nanoTime();
    List<Uni<List<CommandEnvelope>>> parts = new java.util.ArrayList<>();
    for (int from = 0; from < specs.size(); from += SIGNED_PER_WORKER) {
      List<NodeSpec> part = specs.subList(from, Math.min(specs.size(), from + SIGNED_PER_WORKER));
      parts.add(
          Uni.createFrom()
              .item(() -> part.stream().map(this::signed).toList())
              .runSubscriptionOn(
                  io.smallrye.mutiny.infrastructure.Infrastructure.getDefaultWorkerPool()));
    }
    return Uni.join()
        .all(parts)
        .andFailFast()
        .map(
            signed -> {
              timings.span("sign", started);
              return signed.stream().flatMap(List::stream).toList();
            });
  }

  /** What one batch publishes, and the nodes it refuses with their reasons. */
  private record RolloutBatch(List<NodeSpec> specs, java.util.Map<String, String> failures) {}

  private RolloutBatch decideAll(
      List<RolloutSpecRequest> requests,
      java.util.Set<String> existing,
      java.util.Map<String, NodeSpec> current,
      java.util.Map<String, List<ObservedGpu>> observed) {
    List<NodeSpec> specs = new java.util.ArrayList<>();
    java.util.Map<String, String> failures = new java.util.HashMap<>();
    for (RolloutSpecRequest wanted : requests) {
      String node = wanted.node();
      if (!existing.contains(node)) {
        failures.put(node, "node '" + node + "' is not in the fleet projection");
        continue;
      }
      Optional<NodeSpec> previous = Optional.ofNullable(current.get(node));
      long generation = previous.map(NodeSpec::generation).orElse(0L);
      if (generation >= wanted.generation()) {
        continue;
      }
      if (generation != wanted.generation() - 1) {
        failures.put(
            node,
            "desired spec changed outside the rollout: node '"
                + node
                + "' is at generation "
                + generation
                + ", the rollout expected "
                + (wanted.generation() - 1));
        continue;
      }
      try {
        specs.add(
            validate(node, previous, observed.getOrDefault(node, List.of()), wanted.request()));
      } catch (InvalidSpecException e) {
        failures.put(
            node,
            e.getMessage()
                + ": "
                + e.errors().stream()
                    .map(error -> error.field() + " " + error.message())
                    .collect(java.util.stream.Collectors.joining("; ")));
      }
    }
    return new RolloutBatch(specs, failures);
  }

  /**
   * Publishes every node's current desired spec again, at its generation, signed with the current
   * key: the re-sign step of a key rotation, before agents retire the old key (a converged node
   * treats the same generation as a no-op). The nodes are locked in name order, so no concurrent
   * change is overtaken by an older re-signed record; the commit waits for Kafka's acknowledgement
   * (503 as a whole otherwise).
   */
  public Uni<SpecsResigned> resignAll() {
    signing.requireConfigured();
    return Connections.withTransaction(
        pool,
        conn ->
            DesiredSpecs.nodes(conn)
                .chain(
                    names ->
                        DesiredSpecs.lockNodes(conn, names)
                            .chain(() -> DesiredSpecs.currentAll(conn, names)))
                .call(
                    specs ->
                        publisher.sendAll(
                            Topics.NODE_DESIRED,
                            specs.values().stream()
                                .sorted(java.util.Comparator.comparing(NodeSpec::node))
                                .map(this::signed)
                                .toList()))
                .map(specs -> new SpecsResigned(signing.kid(), specs.size())));
  }

  /** The current desired spec of each node that has one, read on {@code via}. */
  public Uni<java.util.Map<String, NodeSpec>> currentSpecs(
      Pool via, java.util.Collection<String> nodes) {
    return DesiredSpecs.currentAll(via, nodes);
  }

  public Uni<CommandAccepted> resetGpu(String node, ResetGpuRequest request) {
    signing.requireConfigured();
    if (request == null || request.gpu() == null) {
      throw new InvalidSpecException(
          "the body needs the GPU index: {\"gpu\": 0}", List.of(new FieldError("gpu", "required")));
    }
    int gpu = request.gpu();
    Instant now = clock.instant();
    return Connections.withTransaction(
            pool,
            conn ->
                requireNode(conn, node)
                    .chain(() -> DesiredSpecs.observedGpus(conn, node))
                    .invoke(observed -> requireGpu(node, gpu, observed))
                    .chain(() -> DesiredSpecs.lockCommands(conn, node))
                    .chain(() -> DesiredSpecs.commandGeneration(conn, node))
                    .chain(
                        last -> {
                          CommandGenerationUsed used = new CommandGenerationUsed(last + 1, now);
                          return facts
                              .append(node, used, now)
                              .chain(fact -> SpecFacts.commandGenerationUsed(conn, fact, used))
                              .replaceWith(used.generation());
                        }))
        .chain(
            generation -> {
              ResetGpu reset = new ResetGpu(gpu, generation, now, now.plus(commandLifetime));
              CommandEnvelope command = signing.sign(CommandEnvelope.of(SOURCE, node, now, reset));
              return publisher
                  .send(Topics.NODE_COMMANDS, command)
                  .map(
                      sent ->
                          new CommandAccepted(
                              node, command.type(), gpu, generation, reset.expiresAt()));
            });
  }

  public Uni<SpecView> view(String node) {
    Uni<Optional<NodeSpec>> desired =
        Connections.withConnection(pool, conn -> DesiredSpecs.current(conn, node));
    Uni<ReconcileState> reconcile = FleetReadModel.reconcile(pool, node);
    return nodes
        .find(node)
        .map(found -> found.orElseThrow(() -> new UnknownNodeException(node)))
        .chain(
            view ->
                Uni.combine()
                    .all()
                    .unis(desired, reconcile)
                    .with(
                        (spec, state) ->
                            SpecViews.of(node, spec.orElse(null), view.gpus(), state)));
  }

  /**
   * The specs sent, recorded as facts on fleet.control-facts (acknowledged) and saved from them in
   * the caller's transaction: after the send, so a fact never names a spec Kafka refused to take.
   */
  private Uni<Void> record(SqlClient conn, List<NodeSpec> specs, String actor) {
    Instant at = clock.instant();
    return facts
        .appendAll(
            specs.stream()
                .map(
                    spec ->
                        new ControlFactLog.Subject(
                            spec.node(), new DesiredSpecSet(spec, actor, at)))
                .toList(),
            at)
        .chain(recorded -> SpecFacts.specsSet(conn, recorded));
  }

  private NodeSpec validate(
      String node, Optional<NodeSpec> previous, List<ObservedGpu> observed, SpecRequest request) {
    return switch (validator.decide(previous, observed, request == null ? empty() : request)) {
      case SpecDecision.Valid valid ->
          valid.draft().toSpec(node, previous.map(NodeSpec::generation).orElse(0L) + 1);
      case SpecDecision.Invalid invalid ->
          throw new InvalidSpecException(
              "the spec for node '"
                  + node
                  + "' has "
                  + invalid.errors().size()
                  + " problem(s); nothing was published",
              invalid.errors());
    };
  }

  private CommandEnvelope signed(NodeSpec spec) {
    Instant now = clock.instant();
    return signing.sign(
        CommandEnvelope.of(SOURCE, spec.node(), now, new ApplyNodeSpec(spec, now, null)));
  }

  private static SpecRequest empty() {
    return new SpecRequest(null, null, List.of());
  }

  private static Uni<Void> requireNode(SqlConnection conn, String node) {
    return FleetReadModel.nodeExists(conn, node)
        .invoke(
            exists -> {
              if (!exists) {
                throw new UnknownNodeException(node);
              }
            })
        .replaceWithVoid();
  }

  private static void requireGpu(String node, int gpu, List<ObservedGpu> observed) {
    if (observed.stream().noneMatch(g -> g.index() == gpu)) {
      throw new InvalidSpecException(
          "node '" + node + "' has no GPU " + gpu,
          List.of(
              new FieldError(
                  "gpu",
                  "the node has no GPU "
                      + gpu
                      + "; its GPUs are "
                      + observed.stream().map(ObservedGpu::index).toList())));
    }
  }
}
