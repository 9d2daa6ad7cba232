package io.fleetwave.agent.desired;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.agent.publish.EventLines;
import io.fleetwave.agent.reconcile.DevicePluginGate;
import io.fleetwave.agent.reconcile.ObservedNode;
import io.fleetwave.agent.reconcile.Outcome;
import io.fleetwave.agent.reconcile.Plan;
import io.fleetwave.agent.reconcile.ProgressListener;
import io.fleetwave.agent.reconcile.Reconciler;
import io.fleetwave.agent.reconcile.Step;
import io.fleetwave.agent.reconcile.StepExecutor;
import io.fleetwave.agent.reconcile.UnplannableSpecException;
import io.fleetwave.events.CommandEnvelope;
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.codec.CommandCodec;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.CommandStream;
import io.fleetwave.events.command.Reprobe;
import io.fleetwave.events.command.ResetGpu;
import io.fleetwave.events.gpu.GpuCatalog;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.NodeBooted;
import io.fleetwave.events.node.SpecAccepted;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.SpecRejected;
import io.fleetwave.events.node.StepKind;
import io.fleetwave.events.node.StepSucceeded;
import io.fleetwave.events.security.Rejection;
import io.fleetwave.events.security.Verdict;
import io.fleetwave.events.spec.NodeSpec;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Brings one node to its desired spec, for one agent run, and keeps it there.
 *
 * <p>At start: if the boot id differs from the last one seen, publish NodeBooted and hold the
 * device-plugin gate (GateHeld). Then, for each verified spec: plan with the {@link Reconciler},
 * publish SpecAccepted with the steps, run them with the {@link StepExecutor} (progress through the
 * node's own event stream, the inventory republished after each GPU step), ending in SpecApplied or
 * StepFailed. A failed spec is retried after a bounded backoff, and at once on a new spec.
 *
 * <p>Replays and downgrades. A spec is applied only if its generation is at least the highest this
 * node accepted: the same generation again is the desired state read again (it converges if the
 * node drifted and is a no-op otherwise), an older one is rejected as replayed, and so is the same
 * generation with other content than this run accepted under it. The highest accepted generation
 * outlives agent runs in the {@link ReplayFloor} (writable hosts); where none is kept (read-only
 * hosts), the follower hands over the newest trusted spec of the topic before its latest record, so
 * an old spec re-published there is refused too. One-shot commands (ResetGpu, Reprobe) follow the
 * strict rule: the generation must be newer than the last one-shot command accepted (kept in the
 * floor as well), and a command issued before this agent run started is refused, since it was meant
 * for an earlier run (the commands topic is read from its end). A record on the wrong stream, past
 * its expiry, issued in the future beyond the clock-skew tolerance, or signed by a key not trusted,
 * and a tombstone, are refused. Every refusal gives SpecRejected with its code and reason (and a
 * log line) and changes nothing.
 *
 * <p>All work of a node runs on its {@link NodeStrand}, one task at a time, on a shared pool.
 */
public final class SpecConverger implements CommandSink {
  private static final System.Logger LOG = System.getLogger(SpecConverger.class.getName());
  static final String MALFORMED = "malformed";

  private final AgentPort agent;
  private final GpuBackend backend;
  private final DevicePluginGate gate;
  private final BootRecord boots;
  private final ReplayFloor floor;
  private final Supplier<String> bootId;
  private final SpecFollowing following;
  private final Reconciler reconciler;
  private final ScheduledExecutorService timers;
  private final NodeStrand strand;
  private final java.time.Instant runStarted;
  private volatile boolean active = true;

  // Strand only.
  private NodeSpec desired;
  // The spec accepted at knownGeneration in this run (null before the first): a spec read again
  // at that generation must be this one.
  private NodeSpec acceptedAtKnown;
  private long knownGeneration;
  private long appliedGeneration;
  private long lastOneShot;
  private int failures;
  private ScheduledFuture<?> retry;

  /**
   * @param agent the agent run whose event stream carries the progress
   * @param gate the node's device-plugin gate
   * @param boots where the last boot id seen is kept
   * @param floor the highest generations accepted by earlier runs, kept where the host allows
   * @param bootId the host's boot id now
   * @param workers pool shared by the nodes' strands
   * @param timers for retries
   */
  public SpecConverger(
      AgentPort agent,
      GpuBackend backend,
      DevicePluginGate gate,
      BootRecord boots,
      ReplayFloor floor,
      Supplier<String> bootId,
      SpecFollowing following,
      Executor workers,
      ScheduledExecutorService timers) {
    this.agent = Objects.requireNonNull(agent, "agent");
    this.backend = Objects.requireNonNull(backend, "backend");
    this.gate = Objects.requireNonNull(gate, "gate");
    this.boots = Objects.requireNonNull(boots, "boots");
    this.floor = Objects.requireNonNull(floor, "floor");
    this.knownGeneration = floor.spec();
    this.lastOneShot = floor.command();
    this.bootId = Objects.requireNonNull(bootId, "bootId");
    this.following = Objects.requireNonNull(following, "following");
    this.reconciler = new Reconciler(GpuCatalog.bundled(), following.deadlines());
    this.timers = Objects.requireNonNull(timers, "timers");
    this.strand = new NodeStrand(agent.nodeName(), workers);
    this.runStarted = following.clock().instant();
  }

  /** Checks the boot (NodeBooted, gate held) before anything else of this run. */
  public void start() {
    submit(this::checkBoot);
  }

  /** This run is over (crash, restart, stop): no more work, no pending retry. */
  public void stop() {
    active = false;
    submit(this::cancelRetry);
  }

  @Override
  public String node() {
    return agent.nodeName();
  }

  @Override
  public boolean active() {
    return active && agent.running();
  }

  @Override
  public void caughtUp(byte[] latestDesired, byte[] newestTrusted) {
    submit(
        () -> {
          // The newest trusted spec first: a latest record older than it is then refused as a
          // replay instead of rolling the node back (see the class comment).
          if (newestTrusted != null && !java.util.Arrays.equals(newestTrusted, latestDesired)) {
            onDesired(newestTrusted);
          }
          if (latestDesired != null) {
            onDesired(latestDesired);
          } else if (!gate.released()) {
            agent.publish(
                new GateHeld(
                    0,
                    "no desired spec for "
                        + node()
                        + " in "
                        + following.desiredTopic()
                        + ": held until one is applied"));
          }
        });
  }

  @Override
  public void catchUpFailed(String reason) {
    submit(
        () -> {
          LOG.log(Level.WARNING, "node {0}: {1}", node(), reason);
          if (!gate.released()) {
            agent.publish(new GateHeld(knownGeneration, reason));
          }
        });
  }

  @Override
  public void tombstone() {
    submit(
        () ->
            report(
                new SpecRejected(
                    0,
                    null,
                    Rejection.UNSIGNED.wireName(),
                    "a tombstone for "
                        + node()
                        + " on "
                        + following.desiredTopic()
                        + " carries no signature and deletes nothing: the desired spec"
                        + (desired == null ? "" : " (generation " + desired.generation() + ")")
                        + " is kept")));
  }

  @Override
  public void desired(byte[] value) {
    submit(() -> onDesired(value));
  }

  @Override
  public void command(byte[] value) {
    submit(() -> onCommand(value));
  }

  private void submit(Runnable task) {
    strand.execute(
        () -> {
          if (!active()) {
            cancelRetry();
            return;
          }
          try {
            task.run();
          } catch (AgentHaltedException e) {
            active = false; // the run died mid-task (crash injection): abandon it
            cancelRetry();
          }
        });
  }

  private void checkBoot() {
    String now = bootId.get();
    Optional<String> previous = boots.last();
    if (previous.isPresent() && previous.get().equals(now)) {
      return;
    }
    agent.publish(new NodeBooted(now, previous.orElse(null)));
    gate.hold("node booted");
    agent.publish(
        new GateHeld(
            0, "node booted (boot id " + now + "): held until the desired spec is applied"));
    boots.remember(now);
  }

  private Optional<CommandEnvelope> decode(byte[] value) {
    try {
      CommandEnvelope command = CommandCodec.decode(value);
      EventLines.received(node(), command);
      return Optional.of(command);
    } catch (EventRejectedException e) {
      report(new SpecRejected(0, null, MALFORMED, e.getMessage()));
      return Optional.empty();
    }
  }

  /**
   * The record decoded and verified for this stream (signed by a trusted key, for this node, newer
   * than lastGeneration, in its validity window), or empty once its rejection is reported.
   */
  private Optional<CommandEnvelope> verified(
      byte[] value, CommandStream stream, long lastGeneration) {
    Optional<CommandEnvelope> decoded = decode(value);
    if (decoded.isEmpty()) {
      return decoded;
    }
    Verdict verdict =
        following
            .verifier()
            .verify(decoded.get(), stream, node(), lastGeneration, following.clock().instant());
    if (verdict instanceof Verdict.Rejected rejected) {
      reject(rejected);
      return Optional.empty();
    }
    return decoded;
  }

  private void onDesired(byte[] value) {
    // The same generation again is the desired state, not a replay (see the class comment).
    Optional<CommandEnvelope> verified =
        verified(value, CommandStream.DESIRED, Math.max(0, knownGeneration - 1));
    if (verified.isEmpty()) {
      return;
    }
    CommandEnvelope command = verified.get();
    // The verifier refused every other kind on this stream (wrong-stream).
    NodeSpec spec = ((ApplyNodeSpec) command.data()).spec();
    if (acceptedAtKnown != null
        && spec.generation() == acceptedAtKnown.generation()
        && !spec.equals(acceptedAtKnown)) {
      // Read again, a generation is the same desired state; other content under it is not that
      // state but a spec issued without a new generation, so it could never be told apart.
      report(
          new SpecRejected(
              spec.generation(),
              command.id(),
              Rejection.REPLAYED.wireName(),
              "generation "
                  + spec.generation()
                  + " was already accepted with other content: a changed spec needs a newer"
                  + " generation"));
      return;
    }
    accept(spec, command);
  }

  private void onCommand(byte[] value) {
    Optional<CommandEnvelope> verified = verified(value, CommandStream.COMMANDS, lastOneShot);
    if (verified.isEmpty()) {
      return;
    }
    CommandEnvelope command = verified.get();
    // No skew allowance here: a command the control plane issued just after this run started,
    // by a clock behind the agent's, is refused (and can be sent again), rather than a replay of
    // one sent to the previous run accepted.
    if (command.data().issuedAt().isBefore(runStarted)) {
      report(
          new SpecRejected(
              command.data().generation(),
              command.id(),
              Rejection.REPLAYED.wireName(),
              "issued at "
                  + command.data().issuedAt()
                  + ", before this agent run started at "
                  + runStarted
                  + ": a one-shot command is only for the run it was sent to"));
      return;
    }
    lastOneShot = command.data().generation();
    if (!remember(() -> floor.rememberCommand(lastOneShot), command)) {
      return;
    }
    switch (command.data()) {
      case Reprobe r -> agent.reprobe();
      case ResetGpu reset -> resetGpu(reset);
      case ApplyNodeSpec apply -> throw new IllegalStateException("refused as wrong-stream");
    }
  }

  /**
   * Records an accepted generation before acting on it; false (reported, nothing done) when the
   * state directory cannot keep it, since acting without it would let a restart replay older ones.
   */
  private boolean remember(Runnable write, CommandEnvelope command) {
    try {
      write.run();
      return true;
    } catch (java.io.UncheckedIOException e) {
      LOG.log(Level.ERROR, "node {0}: {1}", node(), e.getMessage());
      if (!gate.released()) {
        agent.publish(new GateHeld(command.data().generation(), e.getMessage()));
      }
      return false;
    }
  }

  private void reject(Verdict.Rejected rejected) {
    report(
        new SpecRejected(
            rejected.command().data().generation(),
            rejected.command().id(),
            rejected.rejection().wireName(),
            rejected.reason()));
  }

  /** Every refusal is an event and a log line. */
  private void report(SpecRejected rejected) {
    LOG.log(
        Level.WARNING,
        "node {0}: refused {1} (generation {2}): {3}: {4}",
        node(),
        rejected.commandId() == null ? "a record" : rejected.commandId(),
        rejected.generation(),
        rejected.code(),
        rejected.reason());
    agent.publish(rejected);
  }

  private void accept(NodeSpec spec, CommandEnvelope command) {
    String commandId = command.id();
    boolean newer = spec.generation() > knownGeneration;
    if (newer && !remember(() -> floor.rememberSpec(spec.generation()), command)) {
      return;
    }
    if (spec.generation() >= knownGeneration) {
      acceptedAtKnown = spec;
    }
    knownGeneration = Math.max(knownGeneration, spec.generation());
    NodeSpec previous = desired;
    desired = spec;
    if (newer) {
      failures = 0;
    }
    cancelRetry();
    Duration applyDelay = following.applyDelay();
    if (newer && applyDelay.isPositive()) {
      // Simulated apply time: wait on a timer (cancelled like a retry by a newer spec), so a small
      // worker pool can keep many nodes applying at once.
      retry =
          timers.schedule(
              () -> submit(() -> convergeOrRestore(spec, previous, commandId)),
              applyDelay.toNanos(),
              TimeUnit.NANOSECONDS);
      return;
    }
    convergeOrRestore(spec, previous, commandId);
  }

  // Identity: a spec that arrived during the delay supersedes this one even when it is equal.
  @SuppressWarnings("ReferenceEquality")
  private void convergeOrRestore(NodeSpec spec, NodeSpec previous, String commandId) {
    if (desired != spec) {
      return; // superseded while the simulated apply delay ran
    }
    if (!converge(commandId)) {
      desired = previous; // unplannable: nothing changes, the last good spec stays desired
    }
  }

  /** Plans and runs the desired spec; false when it cannot be planned on this node. */
  private boolean converge(String commandId) {
    NodeSpec spec = desired;
    if (spec == null) {
      return true;
    }
    ObservedNode observed;
    try {
      observed = ObservedNode.read(backend, gate.released());
    } catch (RuntimeException e) {
      // No step ran, so no StepFailed: say why the gate stays held and try again later.
      String reason =
          node() + ": cannot read the GPUs to plan spec generation " + spec.generation();
      if (!gate.released()) {
        agent.publish(new GateHeld(spec.generation(), reason + ": " + e.getMessage()));
      }
      scheduleRetry(spec.generation(), reason + ": " + e);
      return true;
    }
    Plan plan;
    try {
      plan = reconciler.plan(observed, spec);
    } catch (UnplannableSpecException e) {
      report(
          new SpecRejected(
              spec.generation(), commandId, UnplannableSpecException.CODE, e.getMessage()));
      return false;
    }
    if (plan.isEmpty() && appliedGeneration == spec.generation()) {
      return true; // converged: a no-op
    }
    agent.publish(new SpecAccepted(spec.generation(), plan.described()));
    Outcome outcome;
    try (StepExecutor executor = new StepExecutor(backend, gate, progress())) {
      outcome = executor.run(plan);
    }
    switch (outcome) {
      case Outcome.Applied applied -> {
        appliedGeneration = spec.generation();
        failures = 0;
      }
      case Outcome.Failed failed ->
          scheduleRetry(failed.event().generation(), failed.event().reason());
    }
    return true;
  }

  /** Publishes through the node's stream; after a GPU step, the inventory; then the hook. */
  private ProgressListener progress() {
    return event -> {
      agent.publish(event);
      if (event instanceof StepSucceeded succeeded) {
        if (succeeded.step().gpu() != null) {
          agent.reportInventory();
        }
        following.interceptor().afterStep(node(), succeeded.step());
        if (!agent.running()) {
          throw new AgentHaltedException(node(), agent.epoch());
        }
      }
    };
  }

  private void scheduleRetry(long generation, String reason) {
    failures++;
    var delay = following.backoff(failures);
    LOG.log(
        Level.INFO,
        "node {0}: spec generation {1} failed ({2}); retry in {3}",
        node(),
        generation,
        reason,
        delay);
    cancelRetry();
    retry =
        timers.schedule(
            () -> submit(() -> converge(null)), delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void cancelRetry() {
    if (retry != null) {
      retry.cancel(false);
      retry = null;
    }
  }

  /**
   * A targeted reset of one GPU, as one bounded step with its progress events (generation = the
   * command's); the spec is converged again afterwards, since a reset loses the GPU's instances.
   */
  private void resetGpu(ResetGpu command) {
    List<String> blockers = new ArrayList<>();
    try {
      backend
          .computeProcesses(command.gpu())
          .forEach(p -> blockers.add("compute process " + p.pid() + " (" + p.name() + ")"));
      blockers.addAll(backend.handleHolders(command.gpu()));
    } catch (GpuOperationException e) {
      // e.g. no such GPU: the reset step itself fails with the hardware's reason
    }
    Plan plan =
        new Plan(
            command.generation(),
            List.of(
                new Step.ResetGpu(
                    command.gpu(), blockers, following.deadlines().of(StepKind.RESET_GPU))));
    ProgressListener progress = progress();
    try (StepExecutor executor =
        new StepExecutor(
            backend,
            gate,
            event -> {
              // The plan of a one-shot command applies no spec and moves no gate.
              if (!(event instanceof SpecApplied) && !(event instanceof GateHeld)) {
                progress.on(event);
              }
            })) {
      executor.run(plan);
    }
    agent.reportInventory();
    converge(null);
  }
}
