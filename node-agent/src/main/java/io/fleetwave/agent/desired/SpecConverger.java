package io.fleetwave.agent.desired;

import io.fleetwave.agent.AgentHaltedException;
import io.fleetwave.agent.NodeAgent;
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
import io.fleetwave.events.EventRejectedException;
import io.fleetwave.events.command.ApplyNodeSpec;
import io.fleetwave.events.command.CommandCodec;
import io.fleetwave.events.command.CommandEnvelope;
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
 * <p>Replays. The desired topic holds the node's full desired state, so its latest record is not a
 * replay when it is read again: after a restart (memory is per agent run) it is applied; a record
 * with the generation already known converges again if the node drifted, and is a no-op if the node
 * is converged; a record with an older generation is rejected as replayed. One-shot commands
 * (ResetGpu, Reprobe) follow the strict rule: the generation must be newer than the last one-shot
 * command accepted in this run. Every refused record gives SpecRejected and changes nothing.
 *
 * <p>All work of a node runs on its {@link NodeStrand}, one task at a time, on a shared pool.
 */
public final class SpecConverger implements CommandSink {
  private static final System.Logger LOG = System.getLogger(SpecConverger.class.getName());
  static final String MALFORMED = "malformed";

  private final NodeAgent agent;
  private final GpuBackend backend;
  private final DevicePluginGate gate;
  private final BootRecord boots;
  private final Supplier<String> bootId;
  private final SpecFollowing following;
  private final Reconciler reconciler;
  private final ScheduledExecutorService timers;
  private final NodeStrand strand;
  private volatile boolean active = true;

  // Strand only.
  private NodeSpec desired;
  private long knownGeneration;
  private long appliedGeneration;
  private long lastOneShot;
  private int failures;
  private ScheduledFuture<?> retry;

  /**
   * @param agent the agent run whose event stream carries the progress
   * @param gate the node's device-plugin gate
   * @param boots where the last boot id seen is kept
   * @param bootId the host's boot id now
   * @param workers pool shared by the nodes' strands
   * @param timers for retries
   */
  public SpecConverger(
      NodeAgent agent,
      GpuBackend backend,
      DevicePluginGate gate,
      BootRecord boots,
      Supplier<String> bootId,
      SpecFollowing following,
      Executor workers,
      ScheduledExecutorService timers) {
    this.agent = Objects.requireNonNull(agent, "agent");
    this.backend = Objects.requireNonNull(backend, "backend");
    this.gate = Objects.requireNonNull(gate, "gate");
    this.boots = Objects.requireNonNull(boots, "boots");
    this.bootId = Objects.requireNonNull(bootId, "bootId");
    this.following = Objects.requireNonNull(following, "following");
    this.reconciler = new Reconciler(GpuCatalog.bundled(), following.deadlines());
    this.timers = Objects.requireNonNull(timers, "timers");
    this.strand = new NodeStrand(agent.nodeName(), workers);
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
  public void caughtUp(byte[] latestDesired) {
    submit(
        () -> {
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
      agent.publish(new SpecRejected(0, null, MALFORMED, e.getMessage()));
      return Optional.empty();
    }
  }

  private void onDesired(byte[] value) {
    Optional<CommandEnvelope> decoded = decode(value);
    if (decoded.isEmpty()) {
      return;
    }
    CommandEnvelope command = decoded.get();
    // The same generation again is the desired state, not a replay (see the class comment).
    Verdict verdict =
        following
            .verifier()
            .verify(command, node(), Math.max(0, knownGeneration - 1), following.clock().instant());
    if (!(verdict instanceof Verdict.Accepted)) {
      reject((Verdict.Rejected) verdict);
      return;
    }
    if (!(command.data() instanceof ApplyNodeSpec apply)) {
      agent.publish(
          new SpecRejected(
              command.data().generation(),
              command.id(),
              MALFORMED,
              command.type() + " does not belong on " + following.desiredTopic()));
      return;
    }
    accept(apply.spec(), command.id());
  }

  private void onCommand(byte[] value) {
    Optional<CommandEnvelope> decoded = decode(value);
    if (decoded.isEmpty()) {
      return;
    }
    CommandEnvelope command = decoded.get();
    Verdict verdict =
        following.verifier().verify(command, node(), lastOneShot, following.clock().instant());
    if (verdict instanceof Verdict.Rejected rejected) {
      reject(rejected);
      return;
    }
    lastOneShot = command.data().generation();
    switch (command.data()) {
      case Reprobe r -> agent.reprobe();
      case ResetGpu reset -> resetGpu(reset);
      case ApplyNodeSpec apply -> accept(apply.spec(), command.id());
    }
  }

  private void reject(Verdict.Rejected rejected) {
    agent.publish(
        new SpecRejected(
            rejected.command().data().generation(),
            rejected.command().id(),
            rejected.rejection().code(),
            rejected.reason()));
  }

  private void accept(NodeSpec spec, String commandId) {
    boolean newer = spec.generation() > knownGeneration;
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
      agent.publish(
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
