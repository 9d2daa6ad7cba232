package io.fleetwave.agent.reconcile;

import io.fleetwave.agent.gpu.GpuBackend;
import io.fleetwave.agent.gpu.GpuOperationException;
import io.fleetwave.events.node.GateHeld;
import io.fleetwave.events.node.GateReleased;
import io.fleetwave.events.node.PlannedStep;
import io.fleetwave.events.node.SpecApplied;
import io.fleetwave.events.node.StepFailed;
import io.fleetwave.events.node.StepStarted;
import io.fleetwave.events.node.StepSucceeded;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a {@link Plan} against a {@link GpuBackend}, one step at a time, each bounded by its
 * deadline. Stops at the first failure. Every run ends in {@link Outcome.Applied} or {@link
 * Outcome.Failed}, never in a wait without bound.
 *
 * <p>Each call runs on its own daemon thread and the plan's thread waits for it at most the step's
 * deadline. A call past its deadline is interrupted and abandoned: the step fails with {@code
 * deadline 30s exceeded}, and since what the call did is then unknown, the agent re-reads the node
 * before planning again. A stuck call (a driver that never answers) keeps only its own thread.
 *
 * <p>On failure the gate is left as it is: held while the GPUs do not match the spec (the plan held
 * it, or it was held since boot), and a GateHeld event says why.
 */
public final class StepExecutor implements AutoCloseable {
  private final GpuBackend backend;
  private final DevicePluginGate gate;
  private final ProgressListener listener;
  private final ExecutorService calls =
      Executors.newCachedThreadPool(Thread.ofPlatform().daemon().name("gpu-step-", 0).factory());

  public StepExecutor(GpuBackend backend, DevicePluginGate gate, ProgressListener listener) {
    this.backend = Objects.requireNonNull(backend, "backend");
    this.gate = Objects.requireNonNull(gate, "gate");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  public Outcome run(Plan plan) {
    long generation = plan.generation();
    for (int i = 0; i < plan.steps().size(); i++) {
      Step step = plan.steps().get(i);
      PlannedStep described = step.describe(i);
      listener.on(new StepStarted(generation, described));
      long started = System.nanoTime();
      Failure failure = attempt(step, generation);
      long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      if (failure != null) {
        StepFailed failed =
            new StepFailed(generation, described, failure.reason(), failure.holder(), elapsed);
        listener.on(failed);
        boolean held = gateHeld();
        if (held) {
          listener.on(
              new GateHeld(
                  generation,
                  "spec generation "
                      + generation
                      + " not applied: step "
                      + i
                      + " ("
                      + step.kind()
                      + ") failed: "
                      + failure.reason()));
        }
        return new Outcome.Failed(failed, held);
      }
      listener.on(new StepSucceeded(generation, described, elapsed));
      switch (step) {
        case Step.HoldGate h ->
            listener.on(new GateHeld(generation, "applying spec generation " + generation));
        case Step.ReleaseGate r -> listener.on(new GateReleased(generation));
        default -> {}
      }
    }
    SpecApplied applied = new SpecApplied(generation);
    listener.on(applied);
    return new Outcome.Applied(applied);
  }

  private record Failure(String reason, String holder) {}

  /** Null on success. */
  private Failure attempt(Step step, long generation) {
    String where =
        (step.gpuIndex() == null ? "node" : "GPU " + step.gpuIndex()) + ": " + step.kind() + ": ";
    Future<?> call = calls.submit(() -> perform(step, generation));
    try {
      call.get(step.deadline().toNanos(), TimeUnit.NANOSECONDS);
      return null;
    } catch (TimeoutException e) {
      call.cancel(true);
      return new Failure(where + "deadline " + format(step.deadline()) + " exceeded", null);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof GpuOperationException refused) {
        // Refused by the hardware, not timed out: say so, with the bound the step had.
        return new Failure(
            refused.getMessage() + " (refused within the " + format(step.deadline()) + " deadline)",
            refused.holder());
      }
      return new Failure(
          where + (cause.getMessage() == null ? cause.toString() : cause.getMessage()), null);
    } catch (InterruptedException e) {
      call.cancel(true);
      Thread.currentThread().interrupt();
      return new Failure(where + "interrupted (agent stopping)", null);
    }
  }

  private void perform(Step step, long generation) {
    switch (step) {
      case Step.HoldGate h -> gate.hold("applying spec generation " + generation);
      case Step.ClearVgpuType s -> backend.setVgpuType(s.gpu(), s.vf(), 0);
      case Step.DestroyInstance s -> backend.destroyGpuInstance(s.gpu(), s.placementStart());
      case Step.DisableVfs s -> backend.setVfsEnabled(s.gpu(), 0);
      case Step.SetMigMode s -> backend.setMigMode(s.gpu(), s.enabled());
      case Step.ResetGpu s -> backend.resetGpu(s.gpu());
      case Step.EnableVfs s -> backend.setVfsEnabled(s.gpu(), s.count());
      case Step.CreateInstance s ->
          backend.createGpuInstance(s.gpu(), s.profile(), s.placementStart());
      case Step.SetVgpuType s -> backend.setVgpuType(s.gpu(), s.vf(), s.typeId());
      case Step.ReleaseGate r -> gate.release();
    }
  }

  private boolean gateHeld() {
    try {
      return !calls.submit(gate::released).get(1, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return true; // unknown: report it held, the safe reading for a device plugin
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  static String format(Duration duration) {
    long millis = duration.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  @Override
  public void close() {
    calls.shutdownNow();
  }
}
